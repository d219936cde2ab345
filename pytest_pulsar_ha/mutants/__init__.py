"""Mutants: deliberately broken clients, to measure whether a scenario would catch a broken one (``pulsar-ha
mutate``). Each mutant is a real object in the real client path; :mod:`.providers` has the provider mutants."""
