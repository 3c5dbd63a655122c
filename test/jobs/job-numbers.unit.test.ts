/**
 * Reading what people type for a job (src/platform/job-ref.ts, src/domain/jobs/job-matches.ts):
 * a `{job_id}` is an id or a number (`16`, `#16`); find_jobs reads `#1`, `job 1`, `job #1`,
 * `no. 1` as job 1, ranks job 1 first for a bare `1`, keeps a phone typed with spaces as one
 * word, and says which fields of a job a search matched.
 */
import { jobNumberOf } from '../../src/platform/job-ref';
import { jobNumberIn, matchedOn, wordsOf } from '../../src/domain/jobs/job-matches';
import type { JobRow } from '../../src/domain/jobs/job-records';
import { searchColumns } from '../../src/domain/jobs/search-text';

describe('jobNumberOf: a {job_id} in a path or argument', () => {
  it.each([
    ['16', 16],
    ['#16', 16],
    ['#1', 1],
    ['007', 7],
    ['999999999', 999999999],
  ])('reads %s as job number %d', (ref, number) => {
    expect(jobNumberOf(ref)).toBe(number);
  });

  it.each([
    ['job_5Tq8KmR2xA9b'],
    ['job_16'],
    [''],
    ['#'],
    ['##16'],
    [' 16'],
    ['16 '],
    ['16a'],
    ['-1'],
    ['1.5'],
    ['1e3'],
    ['#١٦'],
  ])('reads %j as an id, not a number', (ref) => {
    expect(jobNumberOf(ref)).toBeNull();
  });
});

describe('jobNumberIn: a job number in a find_jobs query', () => {
  it.each([
    ['#1', 1],
    ['job 1', 1],
    ['Job #1', 1],
    ['JOB#5', 5],
    ['job no. 12', 12],
    ['job number 7', 7],
    ['no. 12', 12],
    ['No 3', 3],
    ['  #42  ', 42],
  ])('%j names job %d exactly', (q, number) => {
    expect(jobNumberIn(q)).toEqual({ number, exact: true });
  });

  it.each([
    ['1', 1],
    ['42', 42],
    [' 123 ', 123],
  ])('a bare %j may be job %d, ranked first but not alone', (q, number) => {
    expect(jobNumberIn(q)).toEqual({ number, exact: false });
  });

  it.each([
    ['1234'],
    ['5552013344'],
    ['jobs 1'],
    ['job'],
    ['#-1'],
    ['#1234567890'],
    ['job 1 2'],
    ['maria 1'],
    [''],
  ])('%j names no job number (a phone, a word, or too long)', (q) => {
    expect(jobNumberIn(q)).toBeNull();
  });
});

describe('wordsOf', () => {
  it('keeps a phone or claim number typed with spaces or punctuation as one word', () => {
    expect(wordsOf('555 201 3344')).toEqual(['555 201 3344']);
    expect(wordsOf(' (555) 201-3344 ')).toEqual(['(555) 201-3344']);
    expect(wordsOf('+1 555 888 9999')).toEqual(['+1 555 888 9999']);
  });

  it('splits anything else on white space', () => {
    expect(wordsOf(' grace   chatham ')).toEqual(['grace', 'chatham']);
    expect(wordsOf('1 2')).toEqual(['1', '2']); // too few digits for a phone
    expect(wordsOf('SF-22 Birch')).toEqual(['SF-22', 'Birch']);
  });
});

describe('matchedOn', () => {
  const row: JobRow = {
    id: 'job_1',
    company_id: 'co_1',
    job_number: 16,
    title: 'Basement sewage backup',
    status_id: 'st_1',
    status_name: 'New',
    cancelled_at: null,
    cancel_reason: null,
    loss_type: 'water',
    date_of_loss: null,
    cause_of_loss: null,
    water_category: null,
    address_line1: '412 Birch Lane',
    city: 'Springfield',
    region: 'IL',
    postal_code: '62704',
    claim_number: 'SF-22-118734',
    carrier: 'State Farm',
    policy_number: 'HO-4455',
    adjuster: 'Priya Shah',
    referral_source: null,
    program_profile_id: null,
    photo_count: 0,
    customer_name: 'Maria Alvarez',
    created_by: 'per_1',
    created_by_name: 'Avery Stone',
    created_at: new Date('2026-03-02T15:00:00Z'),
    updated_at: new Date('2026-03-02T15:00:00Z'),
  };
  // The digits of the claim and policy numbers and of the people's phones, as the job row keeps them.
  const job = {
    ...row,
    search_digits: searchColumns({
      ...row,
      people: [{ name: 'Maria Alvarez', phone: '(555) 201-3344', email: null }],
    }).search_digits,
  };

  it.each([
    ['alvarez', ['customer']],
    ['SEWAGE', ['title']],
    ['birch', ['address']],
    ['springfield', ['address']],
    ['SF-22-118734', ['claim']],
    ['118734', ['claim']],
    ['4455', ['policy']],
    ['state', ['carrier']],
    ['priya', ['adjuster']],
    ['201-3344', ['phone']],
    ['(555) 201 3344', ['phone']],
    ['tenant@example.com', ['person']],
    ['maria birch', ['customer', 'address']],
  ])('%j matched %j', (q, fields) => {
    expect(matchedOn(job, q, jobNumberIn(q)?.number ?? null)).toEqual(fields);
  });

  it('says number alone when the query named the job by its number', () => {
    expect(matchedOn(job, '#16', 16)).toEqual(['number']);
    expect(matchedOn(job, '17', 17)).toEqual(['person']);
  });
});
