"""Official-compatibility scoring: each original benchmark's parsing rules, exactly."""
