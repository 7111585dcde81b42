// Wire shape of GET /rates: the spec's rate estimation table.
import type { RateEstimationItem } from '../pricing.types.js';

export interface RateEstimationTableView {
  /**
   * One item per model slug in effect, sorted by model_slug. A model name matches the longest
   * slug that prefixes it (lowercased); a null rate means that token class cannot be priced.
   * The organization's own cards replace standard cards with the same slug; per-unit priced
   * models are not listed.
   */
  items: RateEstimationItem[];
}
