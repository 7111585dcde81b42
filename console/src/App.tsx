// The shell: sign-in gate, navigation (links keep the date range), the range picker, the pages.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Route, Switch, useSearch } from 'wouter';
import { storedApiKey, storeApiKey } from './api/api-key.js';
import { DateRangePicker } from './components/DateRangePicker.js';
import { AgentsPage } from './pages/agents/AgentsPage.js';
import { CustomerPage } from './pages/customers/CustomerPage.js';
import { CustomersPage } from './pages/customers/CustomersPage.js';
import { DimensionsPage } from './pages/dimensions/DimensionsPage.js';
import { EventsPage } from './pages/events/EventsPage.js';
import { OverviewPage } from './pages/overview/OverviewPage.js';
import { RatesPage } from './pages/rates/RatesPage.js';
import { SessionPage } from './pages/sessions/SessionPage.js';
import { SessionsPage } from './pages/sessions/SessionsPage.js';
import { SignInPage } from './pages/signin/SignInPage.js';
import { useDateRange, withRange } from './range/date-range.js';

const NAV = [
  ['/', 'Overview'],
  ['/customers', 'Customers'],
  ['/agents', 'Agents & workflows'],
  ['/dimensions', 'Dimensions'],
  ['/sessions', 'Sessions'],
  ['/events', 'Events'],
  ['/rates', 'Rates'],
] as const;

export function App() {
  const [apiKey, setApiKey] = useState(storedApiKey);
  const queryClient = useQueryClient();
  const signOut = () => {
    storeApiKey(null);
    queryClient.clear();
    setApiKey(null);
  };
  if (!apiKey) {
    return (
      <SignInPage
        onSignedIn={(key) => {
          storeApiKey(key);
          setApiKey(key);
        }}
      />
    );
  }
  return <Shell onSignOut={signOut} />;
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const range = useDateRange();
  const search = useSearch();
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">Marginal</span>
        <nav>
          {NAV.map(([path, label]) => (
            <Link key={path} href={withRange(path, range)} className={(active) => (active ? 'active' : '')} data-nav={label}>
              {label}
            </Link>
          ))}
        </nav>
        <button type="button" className="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <div className="toolbar">
        <DateRangePicker key={search} />
      </div>
      <main>
        <Switch>
          <Route path="/" component={OverviewPage} />
          <Route path="/customers" component={CustomersPage} />
          <Route path="/customers/:endUserId" component={CustomerPage} />
          <Route path="/agents" component={AgentsPage} />
          <Route path="/dimensions" component={DimensionsPage} />
          <Route path="/sessions" component={SessionsPage} />
          <Route path="/sessions/:sessionId" component={SessionPage} />
          <Route path="/events" component={EventsPage} />
          <Route path="/rates" component={RatesPage} />
          <Route>
            <div className="note">
              No such page. <Link href={withRange('/', range)}>Back to the overview</Link>.
            </div>
          </Route>
        </Switch>
      </main>
    </div>
  );
}
