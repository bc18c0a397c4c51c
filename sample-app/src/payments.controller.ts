/**
 * `GET /payments`: a text secret injected with `@Secret()`, read on every
 * request, so a rotation reaches the next one. The answer proves the secret
 * is there (its length and version), never its value.
 */
import { Controller, Get } from '@nestjs/common';
import { Secret, VaneClient } from '@vane/nestjs';

@Controller('payments')
export class PaymentsController {
  constructor(private readonly vane: VaneClient) {}

  // #region secret
  @Get()
  payments(@Secret('stripe.api_key') stripeKey: string): {
    stripeConfigured: boolean;
    length: number;
    version: number | undefined;
  } {
    // A real handler would call the payment provider with stripeKey here; never send it back.
    return {
      stripeConfigured: stripeKey.length > 0,
      length: stripeKey.length,
      version: this.vane.secretInfo('stripe.api_key')?.version,
    };
  }
  // #endregion secret
}
