/**
 * Sending a planned A/B evaluation (PROTOCOL §7): one `evaluate-ab` call per
 * batch, in parallel, merged into one answer.
 *
 * @packageDocumentation
 */
import { readAbResults, type AbPlan, type AbResults } from '@vane/client-core';
import { parseJsonAnswer } from '../http/json-answer.js';
import type { ServiceHttp } from '../http/service-http.js';

/**
 * Sends `plan` for one user.
 *
 * @returns flag key → boolean for every key of the plan (false unless the service said true).
 * @throws AddonNotAvailableError and the other HTTP errors of the service.
 */
export async function sendAbEvaluation(
  http: ServiceHttp,
  signal: AbortSignal,
  plan: AbPlan,
  userId: string,
  attributes: Record<string, string>,
): Promise<AbResults> {
  const results: Record<string, boolean> = Object.create(null) as Record<string, boolean>;
  for (const key of plan.keys) results[key] = false;
  await Promise.all(
    plan.batches.map(async (batch) => {
      const answer = await http.fetch(
        {
          method: 'POST',
          path: 'v1/flags/evaluate-ab',
          body: { keys: batch, user_id: userId, attributes },
          operation: 'evaluate-ab',
          // A pure evaluation (PROTOCOL §7): sent again if its connection ends before any answer.
          repeatable: true,
        },
        signal,
      );
      if (answer.status !== 200) throw http.errorFor(answer.status, answer.text, answer.header, 'evaluate-ab');
      readAbResults(parseJsonAnswer(answer, 'evaluate-ab'), batch, results);
    }),
  );
  return results;
}
