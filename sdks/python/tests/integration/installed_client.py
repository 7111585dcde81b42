"""Child process for the wheel test, copied into a scratch directory outside the repository and run
by a venv where only the built wheel is installed: sends one signed event, waits until the service
has priced it and prints one JSON line with where `marginal` was imported from, the ingest answer
and the event as the read API gives it."""

import json
import os
import time

import marginal

client = marginal.Marginal(os.environ["MARGINAL_API_KEY"], os.environ["MARGINAL_SIGNING_SECRET"], os.environ["MARGINAL_BASE_URL"])
# send() returns only on HTTP 202 (it raises the typed error otherwise).
ingest = client.send({"model": "wheel-model", "input_tokens": 1200, "output_tokens": 300,
                      "cache_read_input_tokens": 4000, "user_id": "wheel"})
deadline = time.monotonic() + 90
event = None
while event is None or event.status != "completed":
    if time.monotonic() > deadline:
        raise SystemExit(f"event {ingest.event_id} not priced in time: {event}")
    try:
        event = client.usage_event(ingest.event_id)  # a UUID, as send() returns it
    except marginal.NotFoundError:  # 404 until the processor has written it to the lake
        event = None
    if event is None or event.status != "completed":
        time.sleep(0.25)
client.shutdown()
print(json.dumps({"module": marginal.__file__, "ingest": ingest.model_dump(mode="json"), "event": event.model_dump(mode="json")}))
