-- Data-quality frame (warehouse/quality): the id and enum columns of ak_actor.
SELECT actor_id AS key, actor_id, kind, source, dispatch_mode, origin FROM ak_actor ORDER BY actor_id
