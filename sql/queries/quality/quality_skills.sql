-- Data-quality frame (warehouse/quality): the id and enum columns of ak_skill.
SELECT skill_id AS key, skill_id, status, root_kind FROM ak_skill ORDER BY skill_id
