"""The checker's in-process side, NumPy and PyArrow only (no Spark): the per-message work of every check on an
Arrow table of events (:mod:`~spark_checks.arrays.message_arrays`, its figures and example rows), the layout of a
Parquet history in buckets of whole producers (:mod:`~spark_checks.arrays.layout`), the function each Spark task
runs on one bucket (:mod:`~spark_checks.arrays.buckets`), and the single-process checker that runs that work on a
whole history (:mod:`~spark_checks.arrays.vectorised`).

Importing this package imports nothing.
"""
