"""Reads the analytics table with PyIceberg, an Iceberg reader nobody here wrote.

The analytics peer runs it with the peer virtualenv's interpreter against ministack's S3 Tables
Iceberg REST catalog (SigV4, service s3tables) and its S3, and compares what it prints with the
dashboard's answers. Arguments: the endpoint, the table bucket ARN, the namespace, the table.
Prints one JSON object: the schema's field names, the current snapshot id, and every row's
columns the comparison needs (times and days as ISO text).
"""

import json
import os
import sys

from pyiceberg.catalog import load_catalog


def main() -> None:
    endpoint, warehouse, namespace, table_name = sys.argv[1:5]
    region = os.environ.get("AWS_REGION", "us-east-1")
    catalog = load_catalog(
        "s3tables",
        **{
            "type": "rest",
            "uri": f"{endpoint}/iceberg",
            "warehouse": warehouse,
            "rest.sigv4-enabled": "true",
            "rest.signing-name": "s3tables",
            "rest.signing-region": region,
            "s3.endpoint": endpoint,
            "s3.region": region,
            "s3.access-key-id": os.environ["AWS_ACCESS_KEY_ID"],
            "s3.secret-access-key": os.environ["AWS_SECRET_ACCESS_KEY"],
        },
    )
    table = catalog.load_table((namespace, table_name))
    columns = ["day", "event_time", "uri", "method", "status", "content_type", "is_bot",
               "visitor_key", "request_id"]
    rows = table.scan(selected_fields=tuple(columns)).to_arrow().to_pylist()
    snapshot = table.current_snapshot()
    print(json.dumps({
        "fields": [f.name for f in table.schema().fields],
        "snapshot": snapshot.snapshot_id if snapshot else None,
        "rows": [{k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in r.items()}
                 for r in rows],
    }))


if __name__ == "__main__":
    main()
