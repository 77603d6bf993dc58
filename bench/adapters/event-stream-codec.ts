/**
 * What the AWS event-stream framing costs per frame of the Bedrock stream fixture: the smithy
 * codec called as its README shows (`toUtf8` from @smithy/util-utf8, which builds a Buffer for
 * every header name and value), the same codec handed the interned header decoder, and the
 * adapter's EventStreamDecoder (framing across pushes, CRCs checked by the codec) around it.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { bedrockConformanceFixtures } from '../../packages/provider-adapters/src/bedrock-converse/fixtures.ts';
import {
  CONVERSE_HEADER_STRINGS,
  EventStreamDecoder,
} from '../../packages/provider-adapters/src/bedrock-converse/event-stream.ts';
import { InternedUtf8 } from '../../packages/provider-adapters/src/bedrock-converse/interned-utf8.ts';
import { streamChunks } from './stream-chunks.ts';

/** Registers the figures with `add`; the returned function prints them once they are timed. */
export function eventStreamCodecCosts(add: (work: () => unknown) => () => number): () => string[] {
  const { pieces } = streamChunks(bedrockConformanceFixtures.textStream);
  const frames = pieces.length;
  const plain = new EventStreamCodec(toUtf8, fromUtf8);
  const interned = new EventStreamCodec(new InternedUtf8(CONVERSE_HEADER_STRINGS).decode, fromUtf8);
  const perFrame = (work: () => unknown) => {
    const figure = add(work);
    return () => figure() / frames;
  };
  const codec = perFrame(() => pieces.map((frame) => plain.decode(frame)));
  const internedCodec = perFrame(() => pieces.map((frame) => interned.decode(frame)));
  const decoder = perFrame(() => {
    const stream = new EventStreamDecoder();
    for (const piece of pieces) {
      stream.append(piece);
      while (stream.next() !== undefined);
    }
  });
  const line = (label: string, value: () => number) =>
    `| ${label} | ${value().toFixed(2)} us | ${(value() / codec()).toFixed(2)}x |`;
  return () => [
    `AWS event-stream framing, per frame (${frames} frames, both CRCs checked in every row):`,
    '',
    '| decoding | per frame | vs smithy codec with util-utf8 |',
    '|---|---|---|',
    line('smithy EventStreamCodec.decode, toUtf8 from @smithy/util-utf8', codec),
    line('the same codec, header strings interned', internedCodec),
    line("the adapter's EventStreamDecoder (framing + interned codec)", decoder),
  ];
}
