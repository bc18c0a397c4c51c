// A small element builder. Text always goes in as text nodes, never as HTML,
// so no key or value from the server can inject markup.

/**
 * Creates an element. `props`: `class`, `text`, `on<Event>` handlers, `dataset`,
 * booleans (`hidden`, `disabled`, `required`) and any other attribute.
 * @param {string} tag
 * @param {Record<string, unknown>} [props]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') element.className = String(value);
    else if (name === 'text') element.textContent = String(value);
    else if (name === 'dataset') Object.assign(element.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'value' || name === 'checked') element[name] = value;
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

/**
 * Replaces a list's rows, keeping any row the user is working in (`data-editing`)
 * so a live update never throws away what they are typing, and keeping the focus.
 * @param {HTMLElement} list
 * @param {string[]} keys
 * @param {(key: string) => HTMLElement} makeRow
 */
export function renderRows(list, keys, makeRow) {
  const focusedId = document.activeElement && list.contains(document.activeElement) ? document.activeElement.id : '';
  const kept = new Map();
  for (const row of list.children) if (row.dataset.editing === 'true') kept.set(row.dataset.key, row);
  list.replaceChildren(
    ...keys.map((key) => {
      const row = kept.get(key) ?? makeRow(key);
      row.dataset.key = key;
      return row;
    }),
  );
  if (focusedId) document.getElementById(focusedId)?.focus();
}

/**
 * A keyed panel: a titled section holding its empty state, its list and its form.
 * @param {string} id - prefix of the heading's id (`<id>-title`)
 * @param {string} title
 * @param {...HTMLElement} children
 * @returns {HTMLElement}
 */
export function panel(id, title, ...children) {
  return h(
    'section',
    { class: 'panel', 'aria-labelledby': `${id}-title` },
    h('h3', { id: `${id}-title`, text: title }),
    ...children,
  );
}

/**
 * Shows one row per key of `record`, sorted, or the empty state when it has none.
 * @param {HTMLElement} list
 * @param {HTMLElement} empty
 * @param {Record<string, unknown>} record
 * @param {(key: string) => HTMLElement} makeRow
 */
export function renderKeyed(list, empty, record, makeRow) {
  const keys = Object.keys(record).sort();
  empty.hidden = keys.length > 0;
  renderRows(list, keys, makeRow);
}

/**
 * Shows an error (or clears it with an empty message) in an alert element.
 * @param {HTMLElement} element
 * @param {string} message
 */
export function showError(element, message) {
  element.textContent = message;
  element.hidden = message === '';
}

/** A safe id fragment for a key (keys are `[A-Za-z0-9._-]`, but ids must not clash across lists). */
export function idFor(prefix, key) {
  return `${prefix}-${key.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}_`)}`;
}
