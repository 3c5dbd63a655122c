/**
 * The packet's signed forms: each form laid out by the same definition as its own signed PDF
 * (forms/form-pdf-document.ts), the document as signed and then its audit page, from a page of
 * its own. That definition names its own styles and signature pictures; inside the packet, whose
 * styles share some names, each node gets its style's properties written into it, and each
 * picture a name of its own form, so that two forms' signatures never swap. Pure.
 */
import type { Content, StyleDictionary } from 'pdfmake/interfaces';
import { formPdfDocument, type FormPdfData, type SignaturePictures } from '../forms/form-pdf-document';

/** A PNG signature's print picture in the packet's pictures (the worker makes it): by form and role. */
export const signaturePictureKey = (formId: string, role: string): string => `signature:${formId}:${role}`;

type Node = Record<string, unknown>;

/** `content` with every `style` replaced by that style's properties (the node's own win) and pictures renamed. */
function selfStyled(content: unknown, styles: StyleDictionary, rename: (image: string) => string): unknown {
  if (Array.isArray(content)) return content.map((item) => selfStyled(item, styles, rename));
  if (content === null || typeof content !== 'object') return content;
  const { style, ...own } = content as Node;
  const named = style === undefined ? [] : Array.isArray(style) ? style : [style];
  const node: Node = {};
  for (const entry of named) Object.assign(node, typeof entry === 'string' ? styles[entry] : entry);
  for (const [key, value] of Object.entries(own))
    node[key] =
      key === 'image' && typeof value === 'string' ? rename(value) : selfStyled(value, styles, rename);
  return node;
}

/**
 * The forms' pages, and the pictures they print added to `images` (the packet's). `pictures`
 * holds each PNG signature's print picture under `signaturePictureKey`; a stroke signature is
 * drawn from its strokes.
 */
export function signedFormsSection(
  forms: FormPdfData[],
  pictures: ReadonlyMap<string, Buffer | string>,
  images: Record<string, string>,
): Content[] {
  return forms.map((form, index) => {
    const own: SignaturePictures = {};
    for (const signer of form.signers) {
      const picture = pictures.get(signaturePictureKey(form.form_id, signer.role));
      if (typeof picture === 'string') own[signer.role] = picture;
    }
    const definition = formPdfDocument(form, own);
    const rename = (image: string) => `form${index}-${image}`;
    for (const [name, picture] of Object.entries(definition.images ?? {}))
      if (typeof picture === 'string') images[rename(name)] = picture;
    const content = selfStyled(definition.content, definition.styles ?? {}, rename) as Content;
    return {
      ...(definition.defaultStyle ?? {}),
      stack: [index === 0 ? { text: 'Signed forms', style: 'h1', margin: [0, 0, 0, 8] } : [], content],
      pageBreak: 'before',
    } as Content;
  });
}
