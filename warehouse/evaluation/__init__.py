"""Golden-set evaluation of `knowledge_search`: selectors over the generator's manifest, IR metrics, reports."""
