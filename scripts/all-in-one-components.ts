// The components `npm start` runs in one process, in start order (stopped in reverse). The processor
// runs on its own worker thread so it does not share the HTTP path's event loop.
import { startApi } from '../api/component.js';
import { startSoleIngest } from '../ingest/component.js';
import type { StartComponent } from '../core/process-host.js';
import { startProcessorThread } from '../processor/thread-host.js';

export const allInOneComponents: StartComponent[] = [startSoleIngest, startProcessorThread, startApi];
