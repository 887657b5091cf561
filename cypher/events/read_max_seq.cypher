// The stacking position of the last applied event (-1 when none).
OPTIONAL MATCH (e:Event)
RETURN coalesce(max(e.seq), -1) AS seq
