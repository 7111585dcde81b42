// `npm run cli -- prices diff | apply [--effective-from YYYY-MM-DD]`: the standard catalog against
// the pinned @pydantic/genai-prices package (pricing/catalog/catalog-pin.json). `diff` prints what
// the installed package would change in pricing/standard-rate-cards.json; `apply` appends those
// changes as new effective-dated cards (never editing or removing a card) and validates the file
// before writing it. Local: no server, no admin token. To move to a newer package version:
// `npm install -D -E @pydantic/genai-prices@<version>`, update the pin, `prices diff`, `prices apply`.
import fs from 'node:fs';
import { findProvider } from '@pydantic/genai-prices';
import { fromRoot } from '../../core/paths.js';
import { cardsToAdd, catalogEntries, diffCatalog, type CatalogPin, type CatalogProvider } from '../../pricing/catalog/catalog.js';
import type { StandardRateCardFile } from '../../pricing/pricing.types.js';
import { parseStandardRateCardFile, STANDARD_RATE_CARDS_PATH } from '../../pricing/standard-rate-cards.js';
import { UsageError } from './args.js';
import { utcDate } from '../../core/time.js';

const PIN_PATH = fromRoot('pricing', 'catalog', 'catalog-pin.json');

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

export function runPrices(argv: string[]): number {
  const [action, ...rest] = argv;
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
  throw new UsageError('prices takes diff or apply');
}
