// Child process for the beforeExit test: tracks events and simply ends, without flush() or
// shutdown(); the client's beforeExit hook must deliver them. Prints each outcome as a JSON line.
import { Marginal } from '../../src/index.js';

const [url, apiKey, signingSecret, count] = process.argv.slice(2);
const marginal = new Marginal({
  baseUrl: url,
  apiKey,
  signingSecret,
  onResult: (r) => console.log(JSON.stringify({ status: r.status, key: r.idempotencyKey })),
});
for (let i = 0; i < Number(count); i++) marginal.track({ model: 'gpt-4o', input_tokens: 1, output_tokens: 1 });
