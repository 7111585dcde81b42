// Time charts (uPlot): stacked bars of cost by series, or lines, with optional markers on buckets
// (the Overview's cost anomalies). Geometry uses numbers; every figure written out (legend,
// tooltip) is the API's decimal string through money().
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Granularity, TimeSeries } from '../api/types.js';
import { day } from '../format/dates.js';
import { money } from '../format/money.js';
import { bucketStarts, type DateRange } from '../range/date-range.js';

export interface ChartSeries {
  label: string;
  /** One value per x, the API's decimal string, null where the series has no bucket. */
  values: Array<string | null>;
}

/** A marker's colour: apart from the palette's series colours. */
const MARKER = '#d62828';

/** Draws each marker as a dashed vertical line over its bucket with a triangle at the top. */
function markerHooks(markers: ReadonlyArray<{ date: string }>): uPlot.Hooks.Arrays {
  return {
    draw: [
      (u) => {
        const ctx = u.ctx;
        const top = u.bbox.top;
        const bottom = u.bbox.top + u.bbox.height;
        ctx.save();
        ctx.strokeStyle = MARKER;
        ctx.fillStyle = MARKER;
        ctx.lineWidth = 2 * uPlot.pxRatio;
        ctx.setLineDash([6 * uPlot.pxRatio, 4 * uPlot.pxRatio]);
        for (const m of markers) {
          const x = Math.round(u.valToPos(Date.parse(m.date) / 1000, 'x', true));
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, bottom);
          ctx.stroke();
          const h = 8 * uPlot.pxRatio;
          ctx.beginPath();
          ctx.moveTo(x - h, top);
          ctx.lineTo(x + h, top);
          ctx.lineTo(x, top + h * 1.4);
          ctx.closePath();
          ctx.fill();
        }
        ctx.restore();
      },
    ],
  };
}

const PALETTE = ['#3366cc', '#dc6b2f', '#2a9d8f', '#b5179e', '#e9c46a', '#6d597a', '#8ab17d', '#e76f51', '#457b9d', '#9c6644', '#999999'];

/** Union of bucket dates (ISO) in order, and each series' value per date. */
export function alignSeries(
  series: Array<{ label: string; points: Array<{ date: string; value: string | null }> }>,
  buckets: readonly string[] = [],
): { dates: string[]; series: ChartSeries[] } {
  const dates = [...new Set([...buckets, ...series.flatMap((s) => s.points.map((p) => p.date))])].sort();
  const index = new Map(dates.map((d, i) => [d, i]));
  return {
    dates,
    series: series.map((s) => {
      const values: Array<string | null> = dates.map(() => null);
      for (const p of s.points) values[index.get(p.date)!] = p.value;
      return { label: s.label, values };
    }),
  };
}

/** The API's cost series as chart series over every bucket of the range. */
export function costSeriesChart(series: TimeSeries[], range: DateRange, granularity: Granularity) {
  return alignSeries(
    series.map((s) => ({ label: s.label, points: s.data_points.map((p) => ({ date: p.date, value: p.cost })) })),
    bucketStarts(range, granularity),
  );
}

export function TimeChart(props: {
  id: string;
  dates: string[];
  series: ChartSeries[];
  kind: 'stacked-bars' | 'lines';
  height?: number;
  format?: (v: string | null) => string;
  /** Buckets (ISO dates among `dates`) to mark, each with what its hover says. */
  markers?: ReadonlyArray<{ date: string; label: string }>;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const fmt = props.format ?? money;
  useEffect(() => {
    const el = ref.current;
    if (!el || props.dates.length === 0) return;
    const xs = props.dates.map((d) => Date.parse(d) / 1000);
    const step = xs.length > 1 ? Math.min(...xs.slice(1).map((x, i) => x - xs[i]!)) : 86_400;
    const raw = props.series.map((s) => s.values.map((v) => (v === null ? null : Number(v))));
    let ys: Array<Array<number | null>> = raw;
    let order = raw.map((_, i) => i);
    if (props.kind === 'stacked-bars') {
      // Stack by cumulative sums; draw the tallest stack first so each lower one shows over it.
      const acc = xs.map(() => 0);
      ys = raw.map((vals) => vals.map((v, i) => (acc[i] = acc[i]! + (v ?? 0))));
      order = order.reverse();
    }
    const bars = uPlot.paths.bars!({ size: [0.7, 64] });
    const opts: uPlot.Options = {
      width: el.clientWidth || 800,
      height: props.height ?? 260,
      // Buckets are UTC days, weeks or months: ticks at whole days, labelled as UTC dates.
      scales: {
        x: { time: true, range: (_u, min, max) => [min - step / 2, max + step / 2] },
        // Stacked cost starts at zero; lines (margins can be negative) keep uPlot's own range.
        ...(props.kind === 'stacked-bars'
          ? { y: { range: (_u: uPlot, _min: number, max: number) => [0, max > 0 ? max * 1.05 : 1] as uPlot.Range.MinMax } }
          : {}),
      },
      legend: { show: true },
      ...(props.markers?.length ? { hooks: markerHooks(props.markers) } : {}),
      cursor: { drag: { x: false, y: false } },
      axes: [
        {
          space: 80,
          incrs: [86_400, 2 * 86_400, 7 * 86_400, 14 * 86_400, 28 * 86_400, 91 * 86_400, 365 * 86_400],
          values: (_u, splits) => splits.map((s) => day(new Date(s * 1000).toISOString())),
        },
        { size: 70, values: (_u, splits) => splits.map((s) => (props.format ? String(s) : `$${s}`)) },
      ],
      series: [
        { value: (_u, v) => (v == null ? '—' : day(new Date(v * 1000).toISOString())) },
        ...order.map((si) => {
          const color = PALETTE[si % PALETTE.length]!;
          return {
            label: props.series[si]!.label,
            stroke: color,
            fill: props.kind === 'stacked-bars' ? color : undefined,
            width: props.kind === 'lines' ? 2 : 0,
            paths: props.kind === 'stacked-bars' ? bars : undefined,
            points: { show: props.kind === 'lines' },
            spanGaps: false,
            value: (_u: uPlot, _v: number | null, _s: number, idx: number | null) =>
              idx == null ? '—' : fmt(props.series[si]!.values[idx] ?? null),
          } satisfies uPlot.Series;
        }),
      ],
    };
    const plot = new uPlot(opts, [xs, ...order.map((si) => ys[si]!)] as uPlot.AlignedData, el);
    el.dataset.ready = 'true';
    const onResize = () => plot.setSize({ width: el.clientWidth || 800, height: props.height ?? 260 });
    window.addEventListener('resize', onResize);
    return () => {
      window.removeEventListener('resize', onResize);
      delete el.dataset.ready;
      plot.destroy();
    };
  }, [props.dates, props.series, props.kind, props.height, fmt, props.format, props.markers]);
  if (props.dates.length === 0)
    return (
      <div className="empty chart-empty" data-chart={props.id} data-ready="true">
        No data in this range.
      </div>
    );
  return (
    <div
      className="chart"
      data-chart={props.id}
      data-markers={props.markers?.length ?? 0}
      title={props.markers?.map((m) => `${m.date.slice(0, 10)}: ${m.label}`).join('\n') || undefined}
      ref={ref}
    />
  );
}
