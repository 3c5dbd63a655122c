/**
 * Documents over HTTP and MCP, on both file stores (local disk and S3-compatible storage served by
 * s3rver): upload by content (PDF, encrypted PDF, Word, pictures), refusals
 * naming the part (broken PDFs, PDF bombs, files that are not documents) with nothing saved,
 * reading text page by page from the text layer or by OCR in the background (pending pages, the
 * cache, mixed PDFs, photographed receipts), finding words, progress over MCP, signed download
 * links, replays, duplicates, the change feed and undo, other companies and read keys.
 *
 * The PDFs are made here (test/support/document-files.ts); scanned ones are kept to 1–3 pages
 * since OCR takes seconds a page on one worker.
 */
import type { CallToolResult, Client, Progress } from '@modelcontextprotocol/client';
import type request from 'supertest';
import type { components } from '../../sdk/src/schema';
import { as, createCompany, feedSettled, opId, type TestApp, type TestCompany } from '../support/app';
import { startAppOn } from '../support/s3';
import {
  docxOf,
  encryptedPdf,
  pdfOf,
  photographedPage,
  scannedPdf,
  scansOf,
  zipOf,
} from '../support/document-files';
import { connectMcp } from '../support/mcp';

type Schemas = components['schemas'];
type DocumentUpload = Schemas['DocumentUpload'];
type DocumentList = Schemas['DocumentList'];
type DocumentText = Schemas['DocumentText'];
type Entry = Schemas['ChangeEntry'];

interface Part {
  data: Buffer;
  name: string;
  type?: string;
}

const OCR_TIMEOUT = 120_000;

/** 20 pages of text; DEHUMIDIFIER on pages 3 and 17 only, ADJUSTER on page 5 only. */
const REPORT_PAGES = Array.from({ length: 20 }, (_, i) => [
  `Page ${i + 1} of the drying report`,
  'MOISTURE readings taken in every room',
  ...(i === 2 || i === 16 ? ['DEHUMIDIFIER placed in the kitchen'] : []),
  ...(i === 4 ? ['Call the ADJUSTER about the claim'] : []),
]);
const reportPdf = (): Buffer => pdfOf(REPORT_PAGES.map((lines) => ({ lines })));

// On both file stores: OCR reads a local copy of the stored file, downloaded from S3 there.
/** The tools this file tests (tests-by-tool.unit.test.ts finds them in the describe's title). */
const TOOLS = 'upload_job_documents, list_job_documents, read_document';

describe.each(['disk', 's3'] as const)(`${TOOLS}: documents on %s storage`, (store) => {
  let t: TestApp;
  let co: TestCompany;
  let other: TestCompany;

  beforeAll(async () => {
    t = await startAppOn(store);
    co = await createCompany(t);
    other = await createCompany(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const write = (company = co) => as(t, company.writeKey);
  const read = (company = co) => as(t, company.readKey);

  async function newJob(company = co): Promise<{ id: string; job_number: number }> {
    return (
      await write(company)
        .post('/api/v1/jobs')
        .send({ operation_id: opId(), customer_name: 'Doc Dana' })
        .expect(201)
    ).body;
  }

  function upload(
    jobId: string,
    meta: Record<string, unknown>,
    parts: Part[],
    key = co.writeKey,
  ): request.Test {
    const req = t.http
      .post(`/api/v1/jobs/${jobId}/documents`)
      .set('Authorization', `Bearer ${key}`)
      .field('meta', JSON.stringify(meta));
    for (const part of parts)
      req.attach('document', part.data, {
        filename: part.name,
        contentType: part.type ?? 'application/octet-stream',
      });
    return req;
  }

  async function uploadOne(jobId: string, part: Part): Promise<DocumentUpload['documents'][number]> {
    return (await upload(jobId, { operation_id: opId() }, [part]).expect(201)).body.documents[0];
  }

  const documentsOf = async (jobId: string, query = ''): Promise<DocumentList> =>
    (await read().get(`/api/v1/jobs/${jobId}/documents${query}`).expect(200)).body;
  const stored = async (): Promise<string[]> => (await t.media.files.list(`${co.id}/`)).sort();

  async function readDocument(
    id: string,
    query: Record<string, string | number> = {},
  ): Promise<DocumentText> {
    return (await read().get(`/api/v1/documents/${id}`).query(query).expect(200)).body;
  }

  /** Calls again with the same parameters, as the spec says, until OCR has read every page asked for. */
  async function readUntilRead(
    id: string,
    query: Record<string, string | number> = {},
  ): Promise<DocumentText> {
    const deadline = Date.now() + OCR_TIMEOUT - 10_000;
    for (;;) {
      const answer = await readDocument(id, { wait_seconds: 10, ...query });
      if (answer.pending.length === 0) return answer;
      if (Date.now() > deadline)
        throw new Error(`pages ${answer.pending.join(', ')} of ${id} are still pending`);
    }
  }

  async function fetchLink(url: string): Promise<Response> {
    // Links name the service's PUBLIC_URL; the test's service listens on a port of its own.
    const link = new URL(url);
    return fetch(`${t.url}${link.pathname}${link.search}`, { headers: { Accept: 'application/json' } });
  }

  async function mcpAs(key: string): Promise<Client> {
    const client = await connectMcp(t, key);
    return client;
  }

  function problemOf(result: CallToolResult): { code: string } {
    expect(result.isError).toBe(true);
    const [content] = result.content;
    return JSON.parse(content.type === 'text' ? content.text : '{}');
  }

  it('takes a text PDF, a PDF with a password and a Word file by content, and lists them', async () => {
    const job = await newJob();
    const pdf = reportPdf();
    const res = await upload(
      job.id,
      {
        operation_id: opId(),
        room: 'Office',
        documents: [{ name: 'Drying report' }, { room: 'Kitchen' }, {}],
      },
      [
        { data: pdf, name: 'report.pdf', type: 'application/pdf' },
        { data: await encryptedPdf(pdf), name: 'locked.pdf', type: 'application/pdf' },
        // Named and typed as something else: the content decides.
        { data: docxOf('ADJUSTER letter'), name: 'letter.bin' },
      ],
    ).expect(201);
    const body: DocumentUpload = res.body;
    expect(body).toMatchObject({ added: 3, duplicates: 0 });
    expect(body.rooms_added.sort()).toEqual(['Kitchen', 'Office']);
    expect(
      body.documents.map((d) => [d.name, d.kind, d.format, d.page_count, d.readable, d.room, d.duplicate]),
    ).toEqual([
      ['Drying report', 'pdf', 'pdf', 20, true, 'Office', false],
      ['locked.pdf', 'pdf', 'pdf', null, false, 'Kitchen', false],
      ['letter.bin', 'word', 'docx', null, false, 'Office', false],
    ]);
    const [report, locked, letter] = body.documents;
    expect(report).toMatchObject({
      bytes: pdf.length,
      uploaded_via: 'api',
      uploaded_by: { id: co.people[0].id },
    });
    expect(report.id).toMatch(/^doc_/);

    const listed = await documentsOf(job.id);
    expect(listed.total).toBe(3);
    expect(new Set(listed.data.map((d) => d.id))).toEqual(new Set([report.id, locked.id, letter.id]));
    expect((await documentsOf(job.id, '?kind=word')).data.map((d) => d.id)).toEqual([letter.id]);
    expect((await documentsOf(job.id, '?room=kitchen')).data.map((d) => d.id)).toEqual([locked.id]);

    // Kept, but not read: a password, or an office file.
    const encrypted = await read().get(`/api/v1/documents/${locked.id}`).expect(422);
    expect(encrypted.body.code).toBe('document_encrypted');
    const office = await read().get(`/api/v1/documents/${letter.id}`).expect(422);
    expect(office.body.code).toBe('document_unreadable');
  });

  it('refuses a broken PDF, a PDF bomb and files that are not documents, naming the part, and saves nothing', async () => {
    const job = await newJob();
    const filesBefore = await stored();
    const good = {
      data: pdfOf([{ lines: ['A perfectly good page of MOISTURE readings'] }]),
      name: 'good.pdf',
    };
    const whole = reportPdf();
    const cases: [Part, number, string, RegExp][] = [
      [
        { data: whole.subarray(0, whole.length >> 1), name: 'cut.pdf' },
        422,
        'invalid_file',
        /document part 2 \(cut\.pdf\) is not a readable PDF/,
      ],
      [
        {
          data: pdfOf([{ lines: ['A poster of three hundred inches a side'] }], [21600, 21600]),
          name: 'poster.pdf',
        },
        422,
        'document_too_large',
        /document part 2 \(poster\.pdf\).*300 × 300 in/,
      ],
      [
        { data: Buffer.from('MOISTURE readings, typed up\n'), name: 'notes.pdf', type: 'application/pdf' },
        415,
        'unsupported_media_type',
        /document part 2 \(notes\.pdf\).*text/,
      ],
      [
        {
          data: zipOf([{ name: 'readme.txt', data: Buffer.from('not an office file') }]),
          name: 'photos.docx',
        },
        415,
        'unsupported_media_type',
        /document part 2 \(photos\.docx\).*ZIP/,
      ],
    ];
    for (const [bad, status, code, detail] of cases) {
      const res = await upload(job.id, { operation_id: opId() }, [good, bad]).expect(status);
      expect(res.body).toMatchObject({ code });
      expect(res.body.detail).toMatch(detail);
    }
    expect((await documentsOf(job.id)).total).toBe(0);
    expect(await stored()).toEqual(filesBefore);
  });

  it('reads a text PDF from its text layer, page by page', async () => {
    const job = await newJob();
    const doc = await uploadOne(job.id, { data: reportPdf(), name: 'report.pdf' });

    const first = await readDocument(doc.id);
    expect(first).toMatchObject({
      document_id: doc.id,
      job_id: job.id,
      kind: 'pdf',
      page_count: 20,
      pending: [],
      next_page_from: 11,
    });
    expect(first.pages!.map((p) => [p.page, p.source])).toEqual(
      Array.from({ length: 10 }, (_, i) => [i + 1, 'text_layer']),
    );
    expect(first.pages![2].text).toContain('Page 3 of the drying report');
    expect(first.pages![2].text).toContain('DEHUMIDIFIER');
    expect(first.pages![3].text).not.toContain('DEHUMIDIFIER');

    const rest = await readDocument(doc.id, { page_from: first.next_page_from!, page_count: 10 });
    expect(rest.pages!.map((p) => p.page)).toEqual(Array.from({ length: 10 }, (_, i) => i + 11));
    expect(rest.next_page_from).toBeNull();
    expect(rest.pages![9].text).toContain('Page 20 of the drying report');

    const end = await readDocument(doc.id, { page_from: 19, page_count: 5 });
    expect([end.pages!.map((p) => p.page), end.next_page_from]).toEqual([[19, 20], null]);

    const past = await read().get(`/api/v1/documents/${doc.id}`).query({ page_from: 21 }).expect(400);
    expect(past.body.errors[0].path).toBe('/query/page_from');
    await read().get(`/api/v1/documents/${doc.id}`).query({ page_count: 51 }).expect(400);
  });

  it('finds words: the pages holding all of them, with excerpts, and nothing for a word not there', async () => {
    const job = await newJob();
    const doc = await uploadOne(job.id, { data: reportPdf(), name: 'report.pdf' });

    const found = await readDocument(doc.id, { q: 'dehumidifier' });
    expect(found.matches!.map((m) => [m.page, m.source])).toEqual([
      [3, 'text_layer'],
      [17, 'text_layer'],
    ]);
    for (const match of found.matches!) {
      expect(match.excerpts.length).toBeGreaterThan(0);
      expect(match.excerpts[0].toLowerCase()).toContain('dehumidifier');
    }
    expect(found).toMatchObject({ pending: [], next_page_from: null });
    expect(found.pages).toBeUndefined();

    // Every word must be on the page: ADJUSTER is on page 5, DEHUMIDIFIER is not.
    expect((await readDocument(doc.id, { q: 'Adjuster claim' })).matches!.map((m) => m.page)).toEqual([5]);
    expect((await readDocument(doc.id, { q: 'adjuster dehumidifier' })).matches).toEqual([]);
    expect((await readDocument(doc.id, { q: 'SUBFLOOR' })).matches).toEqual([]);
  });

  it(
    'reads a scanned PDF by OCR in the background: pending first, then the text, kept for the next read',
    async () => {
      const job = await newJob();
      const pdf = await scannedPdf([
        ['SCANNED INVOICE', 'The ADJUSTER visited on Monday'],
        ['DEHUMIDIFIER rental', 'Four days at the house'],
        ['MOISTURE map attached', 'Signed by the owner'],
      ]);
      const doc = await uploadOne(job.id, { data: pdf, name: 'scan.pdf' });
      expect(doc).toMatchObject({ kind: 'pdf', page_count: 3, readable: true });

      // Nothing is ready at once: no page has a text layer.
      const started = await readDocument(doc.id, { wait_seconds: 0 });
      expect(started).toMatchObject({ pages: [], pending: [1, 2, 3], next_page_from: null });

      const done = await readUntilRead(doc.id);
      expect(done.pages!.map((p) => [p.page, p.source])).toEqual([
        [1, 'ocr'],
        [2, 'ocr'],
        [3, 'ocr'],
      ]);
      const texts = done.pages!.map((p) => p.text.toLowerCase());
      expect(texts[0]).toContain('adjuster');
      expect(texts[1]).toContain('dehumidifier');
      expect(texts[2]).toContain('moisture');

      // Read once: the next read answers from the kept pages without waiting, also for another job holding the same file.
      const before = Date.now();
      const again = await readDocument(doc.id, { wait_seconds: 0 });
      expect(Date.now() - before).toBeLessThan(2000);
      expect(again).toMatchObject({ pending: [], pages: done.pages });
      const elsewhere = await uploadOne((await newJob()).id, { data: pdf, name: 'same-scan.pdf' });
      expect(elsewhere.id).not.toBe(doc.id);
      expect(await readDocument(elsewhere.id, { wait_seconds: 0 })).toMatchObject({
        pending: [],
        pages: done.pages,
      });
      expect(
        Number(
          (
            await t
              .db('document_pages')
              .where({ company_id: co.id, sha256: doc.sha256, source: 'ocr' })
              .count({ n: '*' })
          )[0].n,
        ),
      ).toBe(3);

      // Words are found in OCR'd pages too.
      const found = await readDocument(doc.id, { q: 'adjuster', wait_seconds: 0 });
      expect(found.matches!.map((m) => [m.page, m.source])).toEqual([[1, 'ocr']]);
      expect(found.matches![0].excerpts[0].toLowerCase()).toContain('adjuster');
    },
    OCR_TIMEOUT,
  );

  it(
    'reads a mixed PDF: text pages from the text layer, scanned pages by OCR',
    async () => {
      const job = await newJob();
      const [scan] = await scansOf([['SCANNED letter from the ADJUSTER', 'about the claim']]);
      const pdf = pdfOf([
        { lines: ['Mixed packet, page one', 'MOISTURE readings are in the table below'] },
        { scan },
        { lines: ['Mixed packet, page three', 'The DEHUMIDIFIER ran for four days'] },
      ]);
      const doc = await uploadOne(job.id, { data: pdf, name: 'packet.pdf' });
      expect(doc.page_count).toBe(3);

      const done = await readUntilRead(doc.id);
      expect(done.pages!.map((p) => [p.page, p.source])).toEqual([
        [1, 'text_layer'],
        [2, 'ocr'],
        [3, 'text_layer'],
      ]);
      expect(done.pages![0].text).toContain('MOISTURE');
      expect(done.pages![1].text.toLowerCase()).toContain('adjuster');
      expect(done.pages![2].text).toContain('DEHUMIDIFIER');
    },
    OCR_TIMEOUT,
  );

  it(
    'takes a photographed receipt as an image document and reads it by OCR as one page',
    async () => {
      const job = await newJob();
      const doc = await uploadOne(job.id, {
        data: await photographedPage(['RECEIPT', 'DEHUMIDIFIER rental, four days']),
        name: 'receipt.jpg',
      });
      expect(doc).toMatchObject({ kind: 'image', format: 'jpeg', page_count: 1, readable: true });

      const done = await readUntilRead(doc.id);
      expect(done).toMatchObject({ kind: 'image', page_count: 1, next_page_from: null });
      expect(done.pages!.map((p) => [p.page, p.source])).toEqual([[1, 'ocr']]);
      expect(done.pages![0].text.toLowerCase()).toContain('receipt');
      expect(done.pages![0].text.toLowerCase()).toContain('dehumidifier');
    },
    OCR_TIMEOUT,
  );

  it(
    'reads over MCP with progress notifications, and lists documents with a read key',
    async () => {
      const job = await newJob();
      const pdf = await scannedPdf([
        ['Estimate review, SCANNED', 'DEHUMIDIFIER count two'],
        ['Second page of the review', 'ADJUSTER approved'],
      ]);
      const doc = await uploadOne(job.id, { data: pdf, name: 'review.pdf' });
      const client = await mcpAs(co.readKey);
      try {
        const tools = (await client.listTools()).tools.map((tool) => tool.name);
        expect(tools).toEqual(expect.arrayContaining(['read_document', 'list_job_documents']));
        expect(tools).not.toContain('upload_job_documents');

        const listed = (await client.callTool({
          name: 'list_job_documents',
          arguments: { job_id: job.job_number },
        })) as CallToolResult;
        expect(listed.structuredContent).toMatchObject({
          job_id: job.id,
          total: 1,
          data: [{ id: doc.id, name: 'review.pdf', kind: 'pdf', page_count: 2 }],
        });

        // onprogress makes the SDK send a progressToken in _meta (the request's id).
        const progress: Progress[] = [];
        const result = (await client.callTool(
          { name: 'read_document', arguments: { document_id: doc.id, wait_seconds: 25 } },
          { onprogress: (p) => progress.push(p), timeout: OCR_TIMEOUT },
        )) as CallToolResult;
        expect(result.isError).toBeFalsy();
        const text = result.structuredContent as DocumentText;
        expect(text.pending).toEqual([]);
        expect(text.pages!.map((p) => p.source)).toEqual(['ocr', 'ocr']);
        expect(text.pages![1].text.toLowerCase()).toContain('adjuster');
        expect(progress.length).toBeGreaterThanOrEqual(2);
        expect(progress.every((p) => p.total === 2)).toBe(true);
        expect(progress.at(-1)!.progress).toBe(2);
        const steps = progress.map((p) => p.progress);
        expect(steps).toEqual([...steps].sort((a, b) => a - b));

        expect(
          problemOf(
            (await client.callTool({
              name: 'read_document',
              arguments: { document_id: 'doc_doesnotexist' },
            })) as CallToolResult,
          ).code,
        ).toBe('not_found');
      } finally {
        await client.close();
      }
    },
    OCR_TIMEOUT,
  );

  it('downloads by a signed link without a key, under its name; an altered link is refused', async () => {
    const job = await newJob();
    const pdf = reportPdf();
    const [doc, letter] = (
      await upload(job.id, { operation_id: opId(), documents: [{ name: 'Drying report' }, {}] }, [
        { data: pdf, name: 'report.pdf' },
        { data: docxOf('ADJUSTER letter'), name: 'letter.docx' },
      ]).expect(201)
    ).body.documents as DocumentUpload['documents'];
    expect(doc.links.download).toContain(`/files/documents/${doc.id}/download`);
    expect(doc.links.download).not.toContain(co.writeKey);

    const answer = await fetchLink(doc.links.download);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/pdf');
    expect(answer.headers.get('content-disposition')).toContain('filename="Drying report.pdf"');
    expect(Buffer.from(await answer.arrayBuffer()).equals(pdf)).toBe(true);
    const word = await fetchLink(letter.links.download);
    expect(word.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(word.headers.get('content-disposition')).toMatch(/^attachment; filename="letter\.docx"/);

    const altered = new URL(doc.links.download);
    const signature = altered.searchParams.get('s')!;
    altered.searchParams.set('s', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
    const refused = await fetchLink(altered.toString());
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('link_invalid');
    const elsewhere = new URL(doc.links.download);
    elsewhere.searchParams.set('c', other.id);
    expect((await fetchLink(elsewhere.toString())).status).toBe(403);
  });

  it('answers a replay with the first answer, a changed request under the same operation_id with 409, and the same file again as a duplicate', async () => {
    const job = await newJob();
    const operation = opId();
    const parts = [{ data: reportPdf(), name: 'report.pdf' }];
    const first: DocumentUpload = (await upload(job.id, { operation_id: operation }, parts).expect(201)).body;
    const again = await upload(job.id, { operation_id: operation }, parts).expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.documents.map((d: { id: string }) => d.id)).toEqual(first.documents.map((d) => d.id));
    expect((await documentsOf(job.id)).total).toBe(1);

    const changed = await upload(job.id, { operation_id: operation }, [
      { data: docxOf('Another file'), name: 'report.pdf' },
    ]).expect(409);
    expect(changed.body.code).toBe('operation_id_conflict');

    const duplicate: DocumentUpload = (
      await upload(job.id, { operation_id: opId(), room: 'Garage' }, parts).expect(201)
    ).body;
    expect(duplicate).toMatchObject({ added: 0, duplicates: 1, rooms_added: [] });
    expect(duplicate.documents.map((d) => [d.id, d.duplicate, d.room])).toEqual([
      [first.documents[0].id, true, 'Unsorted'],
    ]);
    expect((await documentsOf(job.id)).total).toBe(1);
  });

  it('writes documents.uploaded to the change feed, and undo takes the upload back', async () => {
    const job = await newJob();
    const body: DocumentUpload = (
      await upload(
        job.id,
        { operation_id: opId(), room: 'Basement', documents: [{ name: 'Drying report' }, {}] },
        [
          { data: reportPdf(), name: 'report.pdf' },
          { data: docxOf('Scope of work'), name: 'scope.docx' },
        ],
      ).expect(201)
    ).body;
    const ids = body.documents.map((d) => d.id);

    await feedSettled(t);
    const entries: Entry[] = (
      await read().get('/api/v1/changes?kind=files&limit=100').expect(200)
    ).body.data.filter((e: Entry) => e.job?.id === job.id);
    expect(entries.map((e) => e.action)).toEqual(['documents.uploaded']);
    expect(entries[0].data).toEqual({
      action: 'documents.uploaded',
      document_ids: ids,
      count: 2,
      names: ['Drying report', 'scope.docx'],
      kinds: ['pdf', 'word'],
      rooms_added: ['Basement'],
      via: 'api',
    });

    await write().post('/api/v1/undo').send({ operation_id: opId() }).expect(200);
    expect((await documentsOf(job.id)).total).toBe(0);
    await read().get(`/api/v1/documents/${ids[0]}`).expect(404);
  });

  it('keeps other companies out and read keys from uploading', async () => {
    const job = await newJob();
    const doc = await uploadOne(job.id, { data: reportPdf(), name: 'report.pdf' });
    const part = [
      { data: pdfOf([{ lines: ['Another company would like to add this page of text'] }]), name: 'x.pdf' },
    ];

    expect((await read(other).get(`/api/v1/documents/${doc.id}`).expect(404)).body.code).toBe('not_found');
    await read(other).get(`/api/v1/jobs/${job.id}/documents`).expect(404);
    expect((await upload(job.id, { operation_id: opId() }, part, other.writeKey).expect(404)).body.code).toBe(
      'not_found',
    );
    expect((await upload(job.id, { operation_id: opId() }, part, co.readKey).expect(403)).body.code).toBe(
      'write_key_required',
    );
    expect((await documentsOf(job.id)).total).toBe(1);

    const client = await mcpAs(other.readKey);
    try {
      expect(
        problemOf(
          (await client.callTool({
            name: 'read_document',
            arguments: { document_id: doc.id },
          })) as CallToolResult,
        ).code,
      ).toBe('not_found');
    } finally {
      await client.close();
    }
  });
});
