/**
 * pdfmake as the PDF workers use it (the packet's and the signed form's): the Roboto fonts it
 * ships, and no URL ever fetched, since a document's pictures are files or data the worker made.
 */
import path from 'node:path';
import pdfmake from 'pdfmake';

export const PDF_FONT_DIR = path.join(
  path.dirname(require.resolve('pdfmake/package.json')),
  'fonts',
  'Roboto',
);

/** Registers the fonts and refuses URLs; called once as a worker's module loads. */
export function preparePdfmake(): void {
  pdfmake.setFonts({
    Roboto: {
      normal: path.join(PDF_FONT_DIR, 'Roboto-Regular.ttf'),
      bold: path.join(PDF_FONT_DIR, 'Roboto-Medium.ttf'),
      italics: path.join(PDF_FONT_DIR, 'Roboto-Italic.ttf'),
      bolditalics: path.join(PDF_FONT_DIR, 'Roboto-MediumItalic.ttf'),
    },
  });
  pdfmake.setUrlAccessPolicy(() => false);
}
