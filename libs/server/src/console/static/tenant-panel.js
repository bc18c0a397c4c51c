import { refusal } from './api.js';
import { h, showError } from './dom.js';
import { describeInstant } from './time-input.js';

/**
 * The tenant's switches: billing (overdue days; over 14 every `/v1` call
 * answers 402), the A/B add-on, and quarantine (every `/v1` call answers 429
 * until it ends).
 * @param {HTMLElement} container
 * @param {{ api: import('./api.js').ConsoleApi, refresh: () => Promise<void> }} ctx
 */
export function createTenantPanel(container, ctx) {
  let tenant;
  const error = h('p', { class: 'alert', role: 'alert', id: 'tenant-error', hidden: true });
  const put = async (patch) => {
    try {
      await ctx.api.admin('PUT', ['tenant'], patch);
      showError(error, '');
      await ctx.refresh();
    } catch (e) {
      showError(error, refusal(e));
    }
  };

  const overdueInput = h('input', {
    id: 'tenant-overdue-days',
    type: 'number',
    min: 0,
    step: 1,
    oninput: () => (overdueInput.dataset.dirty = 'true'),
  });
  const billingState = h('p', { class: 'detail', id: 'tenant-billing-state' });
  const billing = h(
    'form',
    {
      class: 'inline-form',
      onsubmit: (event) => {
        event.preventDefault();
        delete overdueInput.dataset.dirty;
        return put({ overdue_days: Number(overdueInput.value) });
      },
    },
    h('label', { for: 'tenant-overdue-days', text: 'Billing overdue (days)' }),
    overdueInput,
    h('button', { type: 'submit', text: 'Save' }),
  );

  const addon = h('button', {
    type: 'button',
    role: 'switch',
    class: 'switch',
    id: 'tenant-ab-addon',
    'aria-label': 'A/B add-on',
    onclick: () => put({ ab_addon: !tenant.ab_addon }),
  });

  const minutesInput = h('input', { id: 'tenant-quarantine-minutes', type: 'number', min: 1, step: 1, value: '15' });
  const quarantineState = h('p', { class: 'detail', id: 'tenant-quarantine-state' });
  const lift = h('button', {
    type: 'button',
    id: 'tenant-quarantine-lift',
    text: 'Lift quarantine',
    onclick: () => put({ quarantined_until: null }),
  });
  const quarantine = h(
    'form',
    {
      class: 'inline-form',
      onsubmit: (event) => {
        event.preventDefault();
        const until = new Date(Date.now() + Number(minutesInput.value) * 60_000);
        return put({ quarantined_until: until.toISOString().replace(/\.\d{3}Z$/, 'Z') });
      },
    },
    h('label', { for: 'tenant-quarantine-minutes', text: 'Quarantine for (minutes)' }),
    minutesInput,
    h('button', { type: 'submit', text: 'Quarantine' }),
  );

  container.replaceChildren(
    billing,
    billingState,
    h('div', { class: 'inline-form' }, h('span', { class: 'label', text: 'A/B add-on' }), addon),
    quarantine,
    quarantineState,
    lift,
    error,
  );

  return {
    /** @param {{ tenant: object, billing_overdue: boolean, quarantined_until: string | null }} overview */
    update(overview) {
      tenant = overview.tenant;
      if (overdueInput.dataset.dirty !== 'true') overdueInput.value = String(tenant.overdue_days);
      billingState.textContent = overview.billing_overdue
        ? 'Overdue: every /v1 call answers 402 billing_overdue.'
        : 'In good standing (more than 14 days overdue answers 402).';
      billingState.className = overview.billing_overdue ? 'detail warn' : 'detail';
      addon.setAttribute('aria-checked', String(tenant.ab_addon));
      addon.textContent = tenant.ab_addon ? 'On' : 'Off';
      quarantineState.textContent = overview.quarantined_until
        ? `Quarantined until ${describeInstant(overview.quarantined_until)}: every /v1 call answers 429.`
        : 'Not quarantined.';
      quarantineState.className = overview.quarantined_until ? 'detail warn' : 'detail';
      lift.hidden = !overview.quarantined_until;
    },
  };
}
