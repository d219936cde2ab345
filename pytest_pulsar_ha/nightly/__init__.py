"""Nightly chaos runs: rounds of the suite with fresh seeds (:mod:`.rounds`), what each round leaves
(:mod:`.records`), and the trend across nights (:mod:`.trend`)."""
