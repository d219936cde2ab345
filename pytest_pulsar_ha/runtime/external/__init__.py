"""The external backend: clusters that run elsewhere, named in a clusters file; only toxiproxy runs here."""
