// Facts per source and layer, with how many carry time information of each kind.
MATCH (f:Fact)
RETURN f.source AS source, f.layer AS layer, count(*) AS facts,
       count(CASE WHEN f.start_year IS NOT NULL AND f.seen_in IS NULL THEN 1 END) AS with_interval,
       count(CASE WHEN f.point_in_time IS NOT NULL THEN 1 END) AS with_point_in_time,
       count(CASE WHEN f.seen_in IS NOT NULL THEN 1 END) AS with_releases,
       count(CASE WHEN f.kind = 'relation' THEN 1 END) AS relation_facts,
       count(CASE WHEN f.kind = 'attribute' THEN 1 END) AS attribute_facts
ORDER BY source, layer
