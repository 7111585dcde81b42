// The services `npm start` runs in one process, in start order (stopped in reverse).
import { startApi } from '../api/service.js';
import { startIngest } from '../ingest/service.js';
import type { StartService } from '../core/process-host.js';
import { startProcessor } from '../processor/service.js';

export const allInOneServices: StartService[] = [startIngest, startProcessor, startApi];
