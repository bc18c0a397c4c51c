// The console page: the service list and tenant on the left, one service's
// configs, flags and secrets side by side on the right (all three on the
// first screen of a laptop), kept current by the server's live feed
// (/console/api/events), whoever made the change.
import { ConsoleApi, refusal } from './api.js';
import { createConfigsPanel } from './configs-panel.js';
import { h, showError } from './dom.js';
import { createFlagsPanel } from './flags-panel.js';
import { createSecretsPanel } from './secrets-panel.js';
import { createTenantPanel } from './tenant-panel.js';
import { createAuditPanel } from './audit-panel.js';
import { createTokensPanel } from './tokens-panel.js';

const byId = (id) => document.getElementById(id);

/** What is on screen now. */
const state = {
  /** @type {ConsoleApi | undefined} */ api: undefined,
  overview: undefined,
  /** The selected service and the revision its panels show. */
  slug: undefined,
  shownRevision: undefined,
  panels: undefined,
};

/** "open stream" or "open streams". */
function streams(count) {
  return count === 1 ? 'open stream' : 'open streams';
}

function report(message) {
  showError(byId('banner'), message);
}

function selectedSlug() {
  const match = /^#\/services\/(.+)$/.exec(window.location.hash);
  const wanted = match ? decodeURIComponent(match[1]) : undefined;
  const services = state.overview?.services ?? [];
  return services.some((s) => s.slug === wanted) ? wanted : services[0]?.slug;
}

function renderServiceList() {
  const { services, open_streams: total } = state.overview;
  byId('total-streams').textContent = String(total);
  byId('total-streams-label').textContent = streams(total);
  byId('no-services').hidden = services.length > 0;
  byId('service-list').replaceChildren(
    ...services.map((service) =>
      h(
        'li',
        {},
        h(
          'a',
          {
            href: `#/services/${encodeURIComponent(service.slug)}`,
            'aria-current': service.slug === state.slug ? 'page' : undefined,
          },
          h('span', { class: 'slug', text: service.slug }),
          h('span', {
            class: 'meta',
            text: `${service.kind} · rev ${service.revision} · ${service.open_streams} ${streams(service.open_streams)}`,
          }),
        ),
      ),
    ),
  );
}

/** Builds the selected service's panels (once per selection; updates only refill their lists). */
function mountService(slug) {
  state.slug = slug;
  state.shownRevision = undefined;
  const container = byId('service');
  if (!slug) {
    state.panels = undefined;
    container.replaceChildren(h('p', { class: 'empty', text: 'Pick a service, or create one to start.' }));
    return;
  }
  const ctx = { api: state.api, slug, refresh: () => showService(true), report };
  state.panels = [createConfigsPanel(ctx), createFlagsPanel(ctx), createSecretsPanel(ctx), createAuditPanel(ctx)];
  // What the token may change: controls it lacks the right for are hidden (the server refuses them anyway).
  state.panels[0].element.dataset.needs = 'write';
  state.panels[1].element.dataset.needs = 'write';
  state.panels[2].element.dataset.needs = 'secrets:write';
  container.replaceChildren(
    h(
      'header',
      { class: 'service-head' },
      h('h2', { id: 'service-title' }, 'Service ', h('code', { text: slug })),
      h(
        'p',
        { class: 'service-meta' },
        h('span', { id: 'service-kind' }),
        ' · revision ',
        h('strong', { id: 'service-revision' }),
        ' · ',
        h('strong', { id: 'service-streams' }),
        ' ',
        h('span', { id: 'service-streams-label', text: 'open streams' }),
      ),
    ),
    h('div', { class: 'panels' }, ...state.panels.map((panel) => panel.element)),
  );
}

function showStreams(count) {
  byId('service-streams').textContent = String(count);
  byId('service-streams-label').textContent = streams(count);
}

/** Fetches and shows the selected service when its revision moved (or `force`). */
async function showService(force = false) {
  const slug = state.slug;
  if (!slug) return;
  const summary = state.overview.services.find((s) => s.slug === slug);
  if (!force && summary && summary.revision === state.shownRevision) return showStreams(summary.open_streams);
  try {
    const view = await state.api.service(slug);
    if (state.slug !== slug) return; // another service was picked meanwhile
    state.shownRevision = view.revision;
    byId('service-kind').textContent = view.kind;
    byId('service-revision').textContent = String(view.revision);
    showStreams(view.open_streams);
    for (const panel of state.panels) panel.update(view);
    report('');
  } catch (e) {
    report(`Could not load service "${slug}": ${refusal(e)}`);
  }
}

async function applyOverview(overview, tenantPanel) {
  state.overview = overview;
  const slug = selectedSlug();
  if (slug !== state.slug) mountService(slug);
  renderServiceList();
  tenantPanel.update(overview);
  await showService();
}

/** How long to wait before checking on a server that refused or dropped the live feed, in ms. */
const RECHECK_MS = 3000;

/**
 * The live feed. EventSource reconnects by itself while the server is away;
 * when the server refuses the feed (a restart ended the session: 401), it
 * gives up, and the page asks the server directly, which sends it to the
 * login form, or starts the feed again once the server answers.
 */
function follow(tenantPanel) {
  const live = byId('live');
  const events = new EventSource('/console/api/events');
  events.addEventListener('open', () => {
    live.dataset.state = 'live';
    live.textContent = 'Live';
  });
  events.addEventListener('error', () => {
    live.dataset.state = 'down';
    if (events.readyState !== EventSource.CLOSED) {
      live.textContent = 'Reconnecting…';
      return;
    }
    live.textContent = 'Disconnected';
    const recheck = async () => {
      try {
        await applyOverview(await state.api.overview(), tenantPanel); // a 401 goes to the login form
        follow(tenantPanel);
      } catch (e) {
        report(`The live feed stopped: ${refusal(e)}. Trying again…`);
        setTimeout(() => void recheck(), RECHECK_MS);
      }
    };
    void recheck();
  });
  events.addEventListener('overview', (event) => {
    void applyOverview(JSON.parse(event.data), tenantPanel);
  });
}

async function main() {
  try {
    state.api = await ConsoleApi.open();
  } catch (e) {
    report(`The console cannot reach the server: ${refusal(e)}`);
    return;
  }
  document.body.dataset.rights = state.api.rights.join(' ');
  byId('actor').textContent = state.api.actor;
  if (state.api.can('admin')) createTokensPanel(byId('tokens'), { api: state.api });
  else byId('tokens').hidden = true;
  const refreshAll = async () => applyOverview(await state.api.overview(), tenantPanel);
  const tenantPanel = createTenantPanel(byId('tenant-body'), { api: state.api, refresh: refreshAll });
  byId('logout').addEventListener('click', async () => {
    await state.api.logout();
    window.location.assign('/console/login');
  });
  window.addEventListener('hashchange', () => {
    mountService(selectedSlug());
    renderServiceList();
    void showService(true);
    byId('main').focus();
  });
  await refreshAll();
  follow(tenantPanel);
}

void main();
