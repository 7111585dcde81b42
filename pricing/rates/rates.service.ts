// /rates: the caller's merged token rate cards (standard replaced by the organization's) as the
// rate estimation table in effect at a time.
import { parseDateParam } from '../../core/time.js';
import { rateEstimationTable } from '../rate-card-match.js';
import type { ReadContext } from '../../core/http/read-context.js';
import type { RateEstimationTableView } from './rates.types.js';

export async function rateTable(rc: ReadContext, asOf: string | undefined): Promise<RateEstimationTableView> {
  const at = parseDateParam('as_of', asOf, false) ?? rc.now();
  return rateEstimationTable(await rc.rateBook.cardsFor(rc.organizationId), at);
}
