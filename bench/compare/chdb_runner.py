"""bench/compare's chDB process: opens a chDB session (its MergeTree tables live in the given
folder), then answers one JSON request per stdin line, {"sql": ...}, with one JSON line:
{"ms": <query time>, "rows": [[...], ...]} or {"error": "..."}. The time covers the query and
decoding its JSONCompact result, measured here so the pipe to Node is not counted."""
import json
import sys
import time

from chdb import session


def main() -> None:
    sess = session.Session(sys.argv[1])
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        started = time.perf_counter()
        try:
            result = sess.query(request["sql"], "JSONCompact")
            text = result.bytes().decode()
            rows = json.loads(text)["data"] if text.strip() else []
            reply = {"ms": (time.perf_counter() - started) * 1000, "rows": rows}
        except Exception as e:  # the error goes back to the caller, which fails loudly
            reply = {"error": str(e)}
        print(json.dumps(reply), flush=True)
    sess.close()


if __name__ == "__main__":
    main()
