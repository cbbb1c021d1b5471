-- The semantic side of the lanes (FR-5.1): each lane's nearest knowledge units to the query vector,
-- brute force, one statement for all lanes. {qvec} = the query's FLOAT[512] literal (warehouse/core/embed.py,
-- one string constant), {lanes} = one vector_lane.sql per queried lane joined by UNION ALL.
-- Unit vectors, so the inner product is the cosine similarity.
WITH q AS (SELECT {qvec} AS qv)
{lanes}
