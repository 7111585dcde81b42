// Previous / next for the API's offset paging.
import { count } from '../format/money.js';

export function Pager({
  offset,
  limit,
  total,
  onOffset,
}: {
  offset: number;
  limit: number;
  total: number;
  onOffset: (offset: number) => void;
}) {
  if (total <= limit && offset === 0) return null;
  return (
    <div className="pager">
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span data-pager>
        {count(total === 0 ? 0 : offset + 1)}–{count(Math.min(offset + limit, total))} of {count(total)}
      </span>
      <button type="button" disabled={offset + limit >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </div>
  );
}
