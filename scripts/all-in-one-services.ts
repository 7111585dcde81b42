// The services `npm start` runs in one process, in start order (stopped in reverse). The processor
// runs on its own worker thread so it does not share the HTTP path's event loop.
import { startApi } from '../api/service.js';
import { startIngest } from '../ingest/service.js';
import type { StartService } from '../core/process-host.js';
import { startProcessorThread } from '../processor/thread-host.js';

export const allInOneServices: StartService[] = [startIngest, startProcessorThread, startApi];
