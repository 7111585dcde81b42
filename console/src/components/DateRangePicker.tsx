// The range picker: presets and custom days; it writes the URL, which every page reads.
import { useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { addDays } from '../format/dates.js';
import { PRESETS, presetRange, rangeFromSearch, rangeSearchParams, type DateRange, type Preset } from '../range/date-range.js';

export function DateRangePicker() {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const range = rangeFromSearch(search);
  const [from, setFrom] = useState(range.start);
  const [to, setTo] = useState(addDays(range.end, -1));
  const apply = (r: DateRange) => {
    const p = new URLSearchParams(search);
    for (const k of ['range', 'from', 'to', 'offset']) p.delete(k);
    for (const [k, v] of Object.entries(rangeSearchParams(r))) p.set(k, v);
    navigate(`${location}?${p.toString()}`);
  };
  const choose = (preset: Preset) => {
    if (preset === 'custom') apply({ preset, start: range.start, end: range.end });
    else apply(presetRange(preset, new Date()));
  };
  return (
    <div className="range-picker" data-range={`${range.start}/${range.end}`}>
      <select aria-label="Date range" value={range.preset} onChange={(e) => choose(e.target.value as Preset)}>
        {PRESETS.map(([id, label]) => (
          <option key={id} value={id}>
            {label}
          </option>
        ))}
      </select>
      {range.preset === 'custom' && (
        <form
          className="custom-range"
          onSubmit={(e) => {
            e.preventDefault();
            if (from && to && from <= to) apply({ preset: 'custom', start: from, end: addDays(to, 1) });
          }}
        >
          <input type="date" aria-label="From" value={from} onChange={(e) => setFrom(e.target.value)} />
          <span>to</span>
          <input type="date" aria-label="To" value={to} onChange={(e) => setTo(e.target.value)} />
          <button type="submit">Apply</button>
        </form>
      )}
      <span className="muted range-text">
        {range.start} – {addDays(range.end, -1)} (UTC)
      </span>
    </div>
  );
}
