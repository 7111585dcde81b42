// `npm run cli -- prices diff | apply [--effective-from YYYY-MM-DD] | check [--as-of <ISO>]`: the standard catalog against
// the pinned @pydantic/genai-prices package (pricing/catalog/catalog-pin.json). `diff` prints what
// the installed package would change in pricing/standard-rate-cards.json; `apply` appends those
// changes as new effective-dated cards (never editing or removing a card) and validates the file
// before writing it. Local: no server, no admin token. To move to a newer package version:
// `npm install -D -E @pydantic/genai-prices@<version>`, update the pin, `prices diff`, `prices apply`.
// `check` compares every current standard card with the package and with the committed LiteLLM
// cost-map snapshot (pricing/catalog/litellm-cost-map.json), listing each disagreement with both
// sides; those pricing/catalog/price-check.json explains are marked, the rest fail it (that file also
// names the dated model an alias points at where the package's own match is stale).
import fs from 'node:fs';
import { findProvider } from '@pydantic/genai-prices';
import { fromRoot } from '../../core/paths.js';
import {
  type CatalogModel,
  type CatalogPin,
  type CatalogProvider,
  cardsToAdd,
  catalogEntries,
  diffCatalog,
} from '../../pricing/catalog/catalog.js';
import {
  checkPrices,
  type LiteLlmSnapshot,
  type PriceCheckAlias,
  type PriceCheckException,
  type PriceCheckInput,
} from '../../pricing/catalog/price-check.js';
import type { StandardRateCardFile } from '../../pricing/pricing.types.js';
import { parseStandardRateCardFile, STANDARD_RATE_CARDS_PATH } from '../../pricing/standard-rate-cards.js';
import { UsageError } from './args.js';
import { utcDate } from '../../core/time.js';

const PIN_PATH = fromRoot('pricing', 'catalog', 'catalog-pin.json');
const LITELLM_PATH = fromRoot('pricing', 'catalog', 'litellm-cost-map.json');
const CHECK_PATH = fromRoot('pricing', 'catalog', 'price-check.json');
const readJson = <T>(path: string): T => JSON.parse(fs.readFileSync(path, 'utf8')) as T;

function installedVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(fromRoot('node_modules', '@pydantic', 'genai-prices', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

function loadCatalog(pin: CatalogPin) {
  const version = installedVersion();
  if (version !== pin.version) {
    throw new UsageError(
      `installed ${pin.package} is ${version} but pricing/catalog/catalog-pin.json pins ${pin.version}: update the pin (version and released date) first`,
    );
  }
  // The package's own model-to-provider match says who makes a model (Claude → anthropic).
  const makerOf = (modelId: string) => findProvider({ modelId })?.id;
  return Object.keys(pin.providers).map((id) => {
    const provider = findProvider({ providerId: id }) as CatalogProvider | undefined;
    if (provider?.id !== id) throw new UsageError(`${pin.package}@${version} has no provider "${id}"`);
    return catalogEntries(provider, pin, makerOf);
  });
}

/** The price check's input from the shipped files, at `asOf` (default: the LiteLLM snapshot's date, so it is reproducible). */
export function loadPriceCheckInput(asOf?: Date): PriceCheckInput {
  const pin = readJson<CatalogPin>(PIN_PATH);
  const version = installedVersion();
  if (version !== pin.version) throw new UsageError(`installed ${pin.package} is ${version} but the pin says ${pin.version}`);
  const makerOf = (modelId: string) => findProvider({ modelId })?.id;
  const genai = new Map<string, CatalogModel[]>();
  for (const [id, ours] of Object.entries(pin.providers)) {
    const provider = findProvider({ providerId: id }) as CatalogProvider | undefined;
    // A maker's own models only: Claude listed under Vertex is not Google's price.
    genai.set(
      ours,
      (provider?.models ?? []).filter((m) => (makerOf(m.id) ?? id) === id),
    );
  }
  const litellm = readJson<LiteLlmSnapshot>(LITELLM_PATH);
  const check = readJson<{ aliases: PriceCheckAlias[]; exceptions: PriceCheckException[] }>(CHECK_PATH);
  return {
    cards: readJson<StandardRateCardFile>(STANDARD_RATE_CARDS_PATH).cards,
    genai,
    litellm,
    aliases: check.aliases,
    exceptions: check.exceptions,
    asOf: asOf ?? new Date(`${litellm.retrieved}T00:00:00Z`),
  };
}

export function runPrices(argv: string[]): number {
  const [action, ...rest] = argv;
  if (action === 'check') {
    const i = rest.indexOf('--as-of');
    const asOf = i >= 0 ? new Date(rest[i + 1] ?? '') : undefined;
    if (asOf && Number.isNaN(asOf.getTime())) throw new UsageError('--as-of must be an ISO date or timestamp');
    const report = checkPrices(loadPriceCheckInput(asOf));
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return report.unexplained === 0 ? 0 : 1;
  }
  const pin = JSON.parse(fs.readFileSync(PIN_PATH, 'utf8')) as CatalogPin;
  const file = JSON.parse(fs.readFileSync(STANDARD_RATE_CARDS_PATH, 'utf8')) as StandardRateCardFile;
  const diff = diffCatalog(file.cards, loadCatalog(pin), pin);
  if (action === 'diff') {
    process.stdout.write(`${JSON.stringify({ package: `${pin.package}@${pin.version}`, ...diff }, null, 2)}\n`);
    return 0;
  }
  if (action === 'apply') {
    const i = rest.indexOf('--effective-from');
    const from = i >= 0 ? rest[i + 1] : utcDate(new Date());
    if (!from || !/^\d{4}-\d{2}-\d{2}$/.test(from)) throw new UsageError('--effective-from must be YYYY-MM-DD');
    const added = cardsToAdd(diff, from);
    const next: StandardRateCardFile = { ...file, version: from, cards: [...file.cards, ...added] };
    parseStandardRateCardFile(next); // refuses a card that would clash with one already there
    fs.writeFileSync(STANDARD_RATE_CARDS_PATH, `${JSON.stringify(next, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify({ added: added.length, effective_from: from, kept_by_hand: diff.kept_by_hand }, null, 2)}\n`);
    return 0;
  }
  throw new UsageError('prices takes diff, apply or check');
}
