// A money figure to the cent (half-up) with its exact value on hover: the API's decimal string is
// the figure; the cents are only how it is shown.
import { cents, exactly } from '../format/money.js';

export function Cents({ value }: { value: string | null | undefined }) {
  return <span title={exactly(value)}>{cents(value)}</span>;
}
