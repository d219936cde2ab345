"""The checker's Spark side: the session and a local standalone cluster, reading a history into Spark and checking it
is one, and the two engines that compute its figures on Spark (:mod:`spark_checks.evidence`): the message frame
(:mod:`~spark_checks.spark.messages`, :mod:`~spark_checks.spark.frame_evidence`) and the buckets
(:mod:`~spark_checks.spark.bucket_loading`, :mod:`~spark_checks.spark.bucket_job`,
:mod:`~spark_checks.spark.bucket_evidence`: one Spark task per bucket runs the in-process work of
:mod:`spark_checks.arrays`).

Importing this package imports nothing: pyspark is imported where a module needs it, when it runs.
"""
