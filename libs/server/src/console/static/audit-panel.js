import { refusal } from './api.js';
import { h, showError } from './dom.js';

/** Entries shown at once; older ones come with "Older". */
const PAGE = 20;

/**
 * The audit of one service, newest first: who changed what, when, and the
 * value before and after for configs and flags (never a secret's value).
 * @param {{ api: import('./api.js').ConsoleApi, slug: string }} ctx
 */
export function createAuditPanel(ctx) {
  const list = h('ol', { class: 'rows audit', id: 'audit-list' });
  const error = h('p', { class: 'alert', role: 'alert', id: 'audit-error', hidden: true });
  const older = h('button', { type: 'button', class: 'quiet', id: 'audit-older', text: 'Older', hidden: true });
  let next = null;

  const entry = (e) =>
    h(
      'li',
      { class: 'row audit-entry' },
      h('span', { class: 'created', text: new Date(e.at).toLocaleString() }),
      h('code', { class: 'key', text: `${e.action}${e.key === null ? '' : ` ${e.key}`}` }),
      h('span', { class: 'meta', text: `by ${e.actor}${e.revision === null ? '' : ` · rev ${e.revision}`}` }),
      'old' in e || 'new' in e
        ? h(
            'code',
            { class: 'value' },
            `${'old' in e ? JSON.stringify(e.old) : '—'} → ${'new' in e ? JSON.stringify(e.new) : '—'}`,
          )
        : null,
    );

  async function load(append) {
    try {
      const query = { service: ctx.slug, limit: String(PAGE) };
      if (append && next) query.cursor = next;
      const page = await ctx.api.audit(query);
      next = page.next;
      older.hidden = next === null;
      const items = page.entries.map(entry);
      if (append) list.append(...items);
      else list.replaceChildren(...items);
      showError(error, '');
    } catch (e) {
      showError(error, refusal(e));
    }
  }
  older.addEventListener('click', () => void load(true));

  const element = h(
    'section',
    { class: 'panel', 'aria-labelledby': 'audit-title', 'data-needs': 'read' },
    h('h3', { id: 'audit-title', text: 'Audit' }),
    error,
    list,
    older,
  );
  return { element, update: () => void load(false) };
}
