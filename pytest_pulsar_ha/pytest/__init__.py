"""The pytest glue: the plugin (options, fixtures, hooks), its hookspecs, the stash keys, and the collection of
``*.pulsar-ha.yaml`` files as tests. Nothing below this layer imports pytest's plugin machinery."""
