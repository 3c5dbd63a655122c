import { defaultJobTitle } from '../../src/domain/jobs/job-title';

describe('create_job default title', () => {
  it('names the customer and the loss, either alone, or says it is a new job', () => {
    expect(defaultJobTitle('Ann Lee', 'water')).toBe('Ann Lee - water');
    expect(defaultJobTitle('Ann Lee', 'other')).toBe('Ann Lee - loss');
    expect(defaultJobTitle('Ann Lee', undefined)).toBe('Ann Lee');
    expect(defaultJobTitle(undefined, 'sewage')).toBe('Sewage job');
    expect(defaultJobTitle(undefined, undefined)).toBe('New job');
  });
});
