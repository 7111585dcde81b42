// One headline figure with its change against the previous period.
import type { ReactNode } from 'react';

export function Kpi(props: {
  id: string;
  label: string;
  value: ReactNode;
  /** What a hover on the value says (a figure shown to the cent: its exact value). */
  title?: string;
  /** Signed decimal text; null when there is nothing to compare with. */
  change?: string | null;
  /** '%' (relative change, default) or ' pp' (percentage points). */
  changeUnit?: string;
  changeGoodWhen?: 'up' | 'down';
  note?: ReactNode;
}) {
  const change = props.change;
  const dir = change === undefined || change === null ? 'none' : change.startsWith('-') ? 'down' : Number(change) === 0 ? 'flat' : 'up';
  const tone = dir === 'none' || dir === 'flat' ? '' : dir === (props.changeGoodWhen ?? 'up') ? 'good' : 'bad';
  return (
    <div className="kpi" data-kpi={props.id}>
      <div className="kpi-label">{props.label}</div>
      <div className="kpi-value" data-value title={props.title}>
        {props.value}
      </div>
      {change !== undefined && (
        <div className={`kpi-change ${tone}`} data-change>
          {change === null
            ? 'previous period: none or 0'
            : `${dir === 'up' ? '+' : ''}${change}${props.changeUnit ?? '%'} vs previous period`}
        </div>
      )}
      {props.note && <div className="kpi-note">{props.note}</div>}
    </div>
  );
}
