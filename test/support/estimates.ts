/**
 * The estimate the packet and finalisation tests start from: a draft "Water mitigation" with a
 * 12 × 10 ft Kitchen and one priced line (120 SF of water extraction at $1.23), made through
 * create_estimate over HTTP.
 */
import type { components } from '../../sdk/src/schema';
import { as, opId, type TestApp } from './app';

export type Estimate = components['schemas']['Estimate'];

export async function draftKitchenEstimate(t: TestApp, key: string, jobId: string): Promise<Estimate> {
  return (
    await as(t, key)
      .post(`/api/v1/jobs/${jobId}/estimates`)
      .send({
        operation_id: opId(),
        label: 'Water mitigation',
        rooms: [{ name: 'Kitchen', length: 12, width: 10, height: 8 }],
        line_items: [
          {
            description: 'Water extraction',
            room: 'Kitchen',
            unit: 'SF',
            quantity: 120,
            unit_price_cents: 123,
          },
        ],
      })
      .expect(201)
  ).body.estimate;
}
