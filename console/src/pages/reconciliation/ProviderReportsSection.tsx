// For owners and admins, through the admin routes their session may call: the provider cost
// connections (never a key, only its hint) with their last poll and error, poll now, connect a
// provider's admin key, disconnect (asked twice); a cost or usage report uploaded from a file (JSON
// as the provider returns it, or CSV text); the tolerance a day may drift. Each write asks the
// reconciliation again, so the tables show what the server now holds. Refusals show the API's message.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { adminPath, apiSend } from '../../api/client.js';
import { useApi, useWrite } from '../../api/queries.js';
import { Cents } from '../../components/Cents.js';
import { ConfirmButton } from '../../components/ConfirmButton.js';
import { DataTable, type Column } from '../../components/DataTable.js';
import { FormError, QueryState } from '../../components/QueryState.js';
import { TextField } from '../../components/TextField.js';
import { dateTime } from '../../format/dates.js';
import { count } from '../../format/money.js';
import {
  CONNECTIONS,
  REPORT_PATH,
  REPORTS,
  SETTINGS,
  USAGE_REPORTS,
  useConnections,
  type ImportResult,
  type UsageImportResult,
  type UsageReportFormat,
  type PollResult,
  type ProviderConnection,
  type ReconciliationSettings,
  type ReportFormat,
} from './reconciliation.queries.js';

type AnyFormat = ReportFormat | UsageReportFormat;
const FORMATS: readonly [AnyFormat, string][] = [
  ['openai_costs', 'OpenAI organization costs (JSON)'],
  ['anthropic_cost_report', 'Anthropic cost report (JSON)'],
  ['csv', 'CSV: date, provider, model, project, cost'],
  ['openai_usage_completions', 'OpenAI completions usage (JSON)'],
  ['anthropic_usage_report', 'Anthropic messages usage report (JSON)'],
];
const USAGE_FORMATS: readonly AnyFormat[] = ['openai_usage_completions', 'anthropic_usage_report'];
const PROVIDERS = [
  ['openai', 'OpenAI'],
  ['anthropic', 'Anthropic'],
] as const;

/** A write that refreshes `path` and the reconciliation itself. */
function useReconciliationWrite<R, V = void>(path: string, write: (v: V) => Promise<R>, done?: (answer: R) => void) {
  const queryClient = useQueryClient();
  return useWrite(path, write, (answer: R) => {
    done?.(answer);
    void queryClient.invalidateQueries({ queryKey: [REPORT_PATH] });
  });
}

export function ProviderReportsSection() {
  return (
    <section className="card" data-section="provider-reports">
      <h2>Provider reports</h2>
      <ConnectionsTable />
      <ConnectForm />
      <UploadForm />
      <ToleranceForm />
    </section>
  );
}

function ConnectionsTable() {
  const connections = useConnections();
  const poll = useReconciliationWrite(adminPath(CONNECTIONS), (provider: string) =>
    apiSend<PollResult>('POST', `${adminPath(CONNECTIONS)}/${provider}/poll`),
  );
  const disconnect = useReconciliationWrite(adminPath(CONNECTIONS), (provider: string) =>
    apiSend<null>('DELETE', `${adminPath(CONNECTIONS)}/${provider}`),
  );
  const columns: Column<ProviderConnection>[] = [
    { id: 'provider', header: 'Provider', value: (c) => c.provider },
    { id: 'key', header: 'Admin key', value: (c) => `…${c.key_hint}` },
    { id: 'api_url', header: 'API', value: (c) => c.api_url },
    { id: 'polled', header: 'Last poll', value: (c) => c.last_polled_at, render: (c) => dateTime(c.last_polled_at) },
    {
      id: 'status',
      header: 'Status',
      value: (c) => c.last_error ?? (c.last_polled_at ? 'ok' : 'not polled yet'),
      render: (c) =>
        c.last_error ? (
          <span className="badge unprofitable">failed: {c.last_error}</span>
        ) : c.last_polled_at ? (
          <span className="badge profitable">ok</span>
        ) : (
          'not polled yet'
        ),
    },
    {
      id: 'actions',
      header: '',
      value: () => null,
      render: (c) => (
        <span className="inline-form">
          <button type="button" disabled={poll.isPending} onClick={() => poll.mutate(c.provider)}>
            Poll now
          </button>
          <ConfirmButton
            label="Disconnect"
            confirmLabel="Disconnect: stop polling (imported figures stay)"
            busy={disconnect.isPending}
            onConfirm={() => disconnect.mutate(c.provider)}
          />
        </span>
      ),
    },
  ];
  return (
    <QueryState query={connections} label="connections">
      {(d) => (
        <>
          <h3>Connections</h3>
          <DataTable
            name="reconciliation-connections"
            columns={columns}
            rows={d.connections}
            rowTestId={(c) => c.provider}
            empty="No provider connected: its cost API is not polled. Connect one below, or upload reports."
          />
          <FormError error={poll.error ?? disconnect.error} />
        </>
      )}
    </QueryState>
  );
}

function ConnectForm() {
  const [provider, setProvider] = useState<string>('openai');
  const [key, setKey] = useState('');
  const connect = useWrite(
    adminPath(CONNECTIONS),
    () => apiSend<ProviderConnection>('PUT', `${adminPath(CONNECTIONS)}/${provider}`, { admin_key: key.trim() }),
    () => setKey(''),
  );
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    connect.mutate();
  };
  return (
    <>
      <form className="inline-form" onSubmit={submit} data-form="connect-provider">
        <label>
          Provider
          <select name="connect-provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
            {PROVIDERS.map(([id, label]) => (
              <option key={id} value={id}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <TextField
          label="Admin key (stored encrypted, polled hourly)"
          type="password"
          name="provider-admin-key"
          autoComplete="off"
          value={key}
          onChange={setKey}
          placeholder="sk-admin-… or sk-ant-admin…"
        />
        <button type="submit" disabled={connect.isPending || key.trim() === ''}>
          Connect
        </button>
      </form>
      <FormError error={connect.error} />
    </>
  );
}

/** The report as the API takes it: the provider's JSON parsed, CSV as text. */
async function reportOf(file: File, format: AnyFormat): Promise<unknown> {
  const text = await file.text();
  if (format === 'csv') return text;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${file.name} is not JSON: pick the CSV format, or the file the provider's API returned`);
  }
}

function UploadForm() {
  const [format, setFormat] = useState<AnyFormat>('openai_costs');
  const [file, setFile] = useState<File | null>(null);
  const [imported, setImported] = useState<ImportResult | UsageImportResult | null>(null);
  const upload = useReconciliationWrite(
    REPORT_PATH,
    async () =>
      apiSend<ImportResult | UsageImportResult>('POST', adminPath(USAGE_FORMATS.includes(format) ? USAGE_REPORTS : REPORTS), {
        format,
        report: await reportOf(file!, format),
      }),
    setImported,
  );
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setImported(null);
    upload.mutate();
  };
  return (
    <>
      <h3>Upload a report</h3>
      <form className="inline-form" onSubmit={submit} data-form="upload-report">
        <label>
          Format
          <select name="report-format" value={format} onChange={(e) => setFormat(e.target.value as AnyFormat)}>
            {FORMATS.map(([id, label]) => (
              <option key={id} value={id}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          File
          <input
            type="file"
            name="report-file"
            accept=".json,.csv,application/json,text/csv"
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          />
        </label>
        <button type="submit" disabled={upload.isPending || file === null}>
          {upload.isPending ? 'Importing…' : 'Import'}
        </button>
      </form>
      <FormError error={upload.error} />
      {imported && (
        <div className="note" data-imported>
          {'total_cost' in imported ? (
            <>
              Imported {count(imported.lines)} cost lines, <Cents value={imported.total_cost} /> in all
            </>
          ) : (
            <>
              Imported {count(imported.lines)} usage lines: {count(imported.input_tokens)} input, {count(imported.cached_input_tokens)}{' '}
              cached input and {count(imported.output_tokens)} output tokens
            </>
          )}
          , replacing {imported.days.map((d) => `${d.provider} ${d.date}`).join(', ') || 'no day'}.
        </div>
      )}
    </>
  );
}

function ToleranceForm() {
  const settings = useApi<ReconciliationSettings>(adminPath(SETTINGS));
  const [tolerance, setTolerance] = useState('');
  const save = useReconciliationWrite(
    adminPath(SETTINGS),
    () => apiSend<ReconciliationSettings>('PUT', adminPath(SETTINGS), { tolerance_percent: tolerance.trim() }),
    () => setTolerance(''),
  );
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <>
      <h3>Tolerance</h3>
      <form className="inline-form" onSubmit={submit} data-form="tolerance">
        <TextField
          label={`Percent of the provider's cost a day may drift (now ${settings.data ? `${settings.data.tolerance_percent}%` : '…'})`}
          name="tolerance-percent"
          inputMode="decimal"
          value={tolerance}
          onChange={setTolerance}
          placeholder="1"
        />
        <button type="submit" disabled={save.isPending || tolerance.trim() === ''}>
          Save
        </button>
      </form>
      <FormError error={save.error} />
    </>
  );
}
