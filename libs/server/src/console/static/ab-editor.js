// The A/B rule of one flag as a form: rollout percentage, salt, and cohorts,
// each with its percentage and its conditions (attribute, operator, values).
// The page checks nothing itself: the form has `novalidate`, sends what was
// typed, and the server's 400 message is shown as it is.
import { h } from './dom.js';

/** A number input's value for the wire: empty is `null` (the server then says what it expects). */
function numberOf(input) {
  return input.value.trim() === '' ? null : Number(input.value);
}

/** `DE, FR` → `["DE", "FR"]`: values are separated by commas, blanks dropped. */
function valuesOf(input) {
  return input.value
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

function numberInput(name, label, value) {
  return h(
    'label',
    { class: 'field' },
    label,
    h('input', {
      type: 'number',
      name,
      step: 'any',
      min: 0,
      max: 100,
      value: value === undefined ? '' : String(value),
    }),
  );
}

/**
 * One condition: `attribute op values`.
 * @param {string[]} operators
 * @param {{ attribute: string, op: string, values: string[] } | undefined} condition
 */
function conditionRow(operators, condition) {
  const row = h(
    'div',
    { class: 'condition' },
    h('label', { class: 'field' }, 'Attribute', h('input', { name: 'attribute', value: condition?.attribute ?? '' })),
    h(
      'label',
      { class: 'field' },
      'Operator',
      h(
        'select',
        { name: 'op' },
        ...operators.map((op) => h('option', { value: op, text: op, selected: op === (condition?.op ?? 'eq') })),
      ),
    ),
    h(
      'label',
      { class: 'field values' },
      'Values (comma-separated)',
      h('input', { name: 'values', value: (condition?.values ?? []).join(', ') }),
    ),
    h('button', {
      type: 'button',
      class: 'quiet',
      text: 'Remove condition',
      onclick: () => row.remove(),
    }),
  );
  return row;
}

/**
 * One cohort: its conditions (all must hold) and its percentage.
 * @param {string[]} operators
 * @param {{ conditions: object[], percentage: number } | undefined} cohort
 * @param {() => void} renumber
 */
function cohortFieldset(operators, cohort, renumber) {
  const conditions = h(
    'div',
    { class: 'conditions' },
    ...(cohort?.conditions ?? [undefined]).map((condition) => conditionRow(operators, condition)),
  );
  const fieldset = h(
    'fieldset',
    { class: 'cohort' },
    h('legend', { text: 'Cohort' }),
    numberInput('cohort-percentage', "Percentage of this cohort's users", cohort?.percentage ?? 100),
    conditions,
    h(
      'div',
      { class: 'actions' },
      h('button', {
        type: 'button',
        class: 'quiet',
        text: 'Add condition',
        onclick: () => conditions.append(conditionRow(operators)),
      }),
      h('button', {
        type: 'button',
        class: 'danger',
        text: 'Remove cohort',
        onclick: () => {
          fieldset.remove();
          renumber();
        },
      }),
    ),
  );
  return fieldset;
}

/**
 * The form of a flag's A/B rule, filled with `rule` (or empty, to add one).
 * @param {{
 *   id: string,
 *   key: string,
 *   rule: { percentage: number, salt: string, cohorts: object[] } | null,
 *   operators: string[],
 *   onSave: (rule: object) => void,
 *   onRemove: () => void,
 *   onCancel: () => void,
 *   error: HTMLElement,
 * }} options
 * @returns {HTMLFormElement}
 */
export function abRuleForm({ id, key, rule, operators, onSave, onRemove, onCancel, error }) {
  const cohorts = h('div', { class: 'cohorts' });
  const renumber = () => {
    [...cohorts.children].forEach((fieldset, index) => {
      fieldset.querySelector('legend').textContent = `Cohort ${index + 1} (first match decides)`;
    });
  };
  const addCohort = (cohort) => {
    cohorts.append(cohortFieldset(operators, cohort, renumber));
    renumber();
  };
  for (const cohort of rule?.cohorts ?? []) addCohort(cohort);

  const percentage = numberInput('rule-percentage', 'Rollout percentage (no cohort matches)', rule?.percentage);
  const salt = h('label', { class: 'field' }, 'Salt', h('input', { name: 'rule-salt', value: rule?.salt ?? key }));

  const read = () => ({
    percentage: numberOf(percentage.querySelector('input')),
    salt: salt.querySelector('input').value,
    cohorts: [...cohorts.children].map((fieldset) => ({
      percentage: numberOf(fieldset.querySelector('input[name="cohort-percentage"]')),
      conditions: [...fieldset.querySelectorAll('.condition')].map((row) => ({
        attribute: row.querySelector('input[name="attribute"]').value.trim(),
        op: row.querySelector('select[name="op"]').value,
        values: valuesOf(row.querySelector('input[name="values"]')),
      })),
    })),
  });

  return h(
    'form',
    {
      class: 'ab-form',
      id,
      novalidate: true,
      onsubmit: (event) => {
        event.preventDefault();
        onSave(read());
      },
    },
    percentage,
    salt,
    cohorts,
    h('button', { type: 'button', class: 'quiet', text: 'Add cohort', onclick: () => addCohort(undefined) }),
    error,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', text: rule ? 'Save A/B rule' : 'Add A/B rule' }),
      h('button', { type: 'button', class: 'quiet', text: 'Cancel', onclick: onCancel }),
      rule ? h('button', { type: 'button', class: 'danger', text: 'Remove A/B rule', onclick: onRemove }) : null,
    ),
  );
}

/** A rule in one line: `50 % of users; cohorts: country in DE, FR → 100 %`. */
export function describeAb(ab) {
  if (!ab) return 'No A/B rule: every user gets is_active.';
  const cohorts = ab.cohorts.map(
    (cohort) =>
      `${cohort.conditions.map((c) => `${c.attribute} ${c.op} ${c.values.join(', ')}`).join(' and ') || 'everyone'} → ${cohort.percentage} %`,
  );
  return `A/B: ${ab.percentage} % of users${cohorts.length > 0 ? `; ${cohorts.join('; ')}` : ''} (salt "${ab.salt}").`;
}
