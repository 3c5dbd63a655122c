/**
 * The demo company's form templates: a work authorization signed before work starts and a
 * certificate of completion signed when the job is dry, written for this service in plain words.
 * A starting point for a real company, whose own lawyer has the last word on the text.
 */
import type { BodyOf } from '../tools/tool';

type TemplateInput = BodyOf<'admin_create_form_template'>;

const WORK_AUTHORIZATION_BODY = `# Work authorization

**{{job.company_name}}**, job #{{job.job_number}}, {{job.today}}

- Customer: {{job.customer_name}}
- Property: {{job.loss_address}}
- Insurance company: {{job.carrier}}
- Claim number: {{job.claim_number}}
- Date of loss: {{job.date_of_loss}}

## The work you are asking for

You ask {{job.company_name}} to start emergency water mitigation at the property above: take
out standing water, move and protect belongings, remove wet materials that cannot be dried
(such as carpet pad, baseboard or the lower part of drywall), treat the affected areas against
microbial growth where needed, and set up drying equipment until the structure is dry. We
explain any removal to you before we do it, and we photograph and measure everything we do.

Your initials: {{fill.initials_work}}

## Equipment and power

Drying equipment runs day and night, uses the property's electricity and can be loud. Please
do not switch it off or move it: call us instead, since a stop of even a few hours can add days
to the drying. We come back to take readings, usually every day, and take the equipment away
when the readings show the materials are dry.

Your initials: {{fill.initials_equipment}}

## Payment

We price the work by the line items and prices usual for this kind of work, written in an
estimate for this job. When your insurance covers the loss we send our bill and the drying
records to your insurance company and work with its adjuster. You remain responsible for your
deductible and for any amount your insurance company does not pay.

Your initials: {{fill.initials_payment}}

## Records we share

Our photos, moisture readings and notes of this job may be shared with your insurance company
and its adjuster for this claim, and with no one else without your permission.

## Your right to authorize

You confirm that you own the property, or have the owner's permission to authorize this work.

Your relationship to the property (owner, tenant, property manager, …): {{fill.relationship}}

Date: {{fill.signed_on}}
`;

const CERTIFICATE_OF_COMPLETION_BODY = `# Certificate of completion

**{{job.company_name}}**, job #{{job.job_number}}, {{job.today}}

- Customer: {{job.customer_name}}
- Property: {{job.loss_address}}
- Insurance company: {{job.carrier}}
- Claim number: {{job.claim_number}}
- Date of loss: {{job.date_of_loss}}

## From the technician

The water mitigation work at this property is finished. The affected materials reached their
drying goals, as the drying log of this job records, and the drying equipment has been taken
away.

Date the work was finished: {{fill.completed_on}}

Technician's initials: {{fill.technician_initials}}

## From the customer

{{fill.walked_through}} I have walked through the work areas with the technician, or was
offered the chance to.

{{fill.work_complete}} The mitigation work described above is complete.

Anything you want to add: {{fill.comments}}

## What this means

This certificate may be sent to your insurance company with our bill for the mitigation work.
It does not end your rights under your insurance policy, and it does not cover damage that
was hidden and is found later, or repair and rebuild work, which are agreed separately. If
something is not right, tell us: we would rather hear it now.
`;

export const DEMO_FORM_TEMPLATES: TemplateInput[] = [
  {
    name: 'Work authorization',
    kind: 'work_authorization',
    signers: ['customer'],
    body: WORK_AUTHORIZATION_BODY,
    fields: [
      {
        key: 'initials_work',
        label: 'Initials: the work you are asking for',
        type: 'initials',
        required: true,
        signer: 'customer',
      },
      {
        key: 'initials_equipment',
        label: 'Initials: equipment and power',
        type: 'initials',
        required: true,
        signer: 'customer',
      },
      {
        key: 'initials_payment',
        label: 'Initials: payment',
        type: 'initials',
        required: true,
        signer: 'customer',
      },
      {
        key: 'relationship',
        label: 'Your relationship to the property',
        type: 'text',
        required: true,
        signer: 'customer',
      },
      { key: 'signed_on', label: 'Date', type: 'date', required: true, signer: 'customer' },
    ],
  },
  {
    name: 'Certificate of completion',
    kind: 'certificate_of_completion',
    signers: ['customer', 'technician'],
    body: CERTIFICATE_OF_COMPLETION_BODY,
    fields: [
      {
        key: 'completed_on',
        label: 'Date the work was finished',
        type: 'date',
        required: true,
        signer: 'technician',
      },
      {
        key: 'technician_initials',
        label: "Technician's initials",
        type: 'initials',
        required: true,
        signer: 'technician',
      },
      {
        key: 'walked_through',
        label: 'I have walked through the work areas, or was offered the chance to',
        type: 'checkbox',
        required: true,
        signer: 'customer',
      },
      {
        key: 'work_complete',
        label: 'The mitigation work described above is complete',
        type: 'checkbox',
        required: true,
        signer: 'customer',
      },
      {
        key: 'comments',
        label: 'Anything you want to add',
        type: 'text',
        required: false,
        signer: 'customer',
      },
    ],
  },
];
