/** heic-decode ships no types: the one call the service makes. */
declare module 'heic-decode' {
  interface DecodedImage {
    width: number;
    height: number;
    /** RGBA, 8 bits a channel. */
    data: Uint8ClampedArray;
  }
  function decode(input: { buffer: ArrayBufferLike | Uint8Array }): Promise<DecodedImage>;
  export default decode;
}
