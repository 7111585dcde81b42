// Child process for the package test, copied into a scratch project outside the repository: it
// imports the installed @marginal/sdk by name, sends one signed event, waits until the service has
// priced it and prints one JSON line: where the package resolved from, the ingest answer and the
// event as the read API gives it.
import { Marginal, NotFoundError } from '@marginal/sdk';

const { MARGINAL_BASE_URL: baseUrl, WRITE_KEY, SIGNING_SECRET, READ_KEY } = process.env;
const writer = new Marginal({ baseUrl, apiKey: WRITE_KEY, signingSecret: SIGNING_SECRET, flushOnExit: false });
// send() resolves only on HTTP 202 (it throws the typed error otherwise).
const ingest = await writer.send({
  model: 'pack-model',
  input_tokens: 1200,
  output_tokens: 300,
  cache_read_input_tokens: 4000,
  user_id: 'packed',
});

const reader = new Marginal({ baseUrl, apiKey: READ_KEY, flushOnExit: false });
const deadline = Date.now() + 90_000;
let event = null;
while (event === null || event.status !== 'completed') {
  if (Date.now() > deadline) throw new Error(`event ${ingest.event_id} not priced in time: ${JSON.stringify(event)}`);
  // Ingest is asynchronous: the event is 404 until the processor has written it to the lake.
  event = await reader.usageEvent({ eventId: ingest.event_id }).catch((e) => (e instanceof NotFoundError ? null : Promise.reject(e)));
  if (event?.status !== 'completed') await new Promise((r) => setTimeout(r, 250));
}
console.log(JSON.stringify({ resolved: import.meta.resolve('@marginal/sdk'), ingest, event }));
