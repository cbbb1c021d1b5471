-- Data-quality frame (warehouse/quality): the id and enum columns of ak_event.
SELECT event_id AS key, event_id, source, role FROM ak_event ORDER BY event_id
