"""Arbiter on Spark: PGN files checked where they lie, one task per file,
`arbiter.pgn_table`'s Arrow batches handed to Spark as they are
(`DataFrame.mapInArrow`, Spark 3.3 and later).

    spark-submit [--master spark://HOST:7077] python/examples/spark_map_in_arrow.py \\
        OUT_DIR FILE.pgn.zst ...

Every executor's Python needs the wheel and pyarrow (see python/README.md,
"Spark"), and every executor must see the input files at the same paths.
Writes one Parquet row per game: `file` and the columns of `pgn_table`,
unsigned integers as Spark's signed `bigint`; prints the number of games and
the job's seconds. CI runs it with spark-submit on a standalone cluster of a
master and two workers on 127.0.0.1 (tests/test_spark.py).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterator

import pyarrow as pa
from pyspark.sql import SparkSession

import arbiter

# Spark has no unsigned integers.
SIGNED = {pa.uint32(): pa.int64(), pa.uint64(): pa.int64()}
SPARK_TYPES = {pa.string(): "string", pa.int64(): "bigint", pa.bool_(): "boolean"}


def arrow_schema() -> pa.Schema:
    """The rows' schema: `file`, then pgn_table's columns (a table of no
    games has them) with unsigned integers made signed."""
    with tempfile.NamedTemporaryFile(suffix=".pgn") as nothing:
        columns = arbiter.pgn_table(nothing.name).schema
    fields = [pa.field(f.name, SIGNED.get(f.type, f.type)) for f in columns]
    return pa.schema([pa.field("file", pa.string()), *fields])


def spark_schema(schema: pa.Schema) -> str:
    """The same schema as Spark's DDL."""
    return ", ".join(f"`{f.name}` {SPARK_TYPES[f.type]}" for f in schema)


def check(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """For each file named in the input, its games, on one thread (Spark
    runs the tasks side by side)."""
    schema = arrow_schema()
    for batch in batches:
        for path in batch.column("path").to_pylist():
            table = arbiter.pgn_table(path, jobs=1)
            table = table.add_column(0, "file", pa.array([path] * table.num_rows, pa.string()))
            yield from table.cast(schema).to_batches()


def main() -> None:
    out, *paths = sys.argv[1:]
    spark = SparkSession.builder.appName("arbiter-pgn").getOrCreate()
    started = time.perf_counter()
    files = spark.createDataFrame([(path,) for path in paths], "path string")
    games = files.repartition(len(paths)).mapInArrow(check, spark_schema(arrow_schema()))
    games.write.mode("overwrite").parquet(out)
    seconds = time.perf_counter() - started
    count = spark.read.parquet(out).count()
    print(f"{count} games from {len(paths)} files in {seconds:.2f} s")
    spark.stop()


if __name__ == "__main__":
    main()
