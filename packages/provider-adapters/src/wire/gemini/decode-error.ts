import { AdapterRequestError } from '../../adapter.ts';

/** A Gemini client's request uses something no other provider can express (a 400). */
export class GeminiDecodeError extends AdapterRequestError {
  constructor(message: string) {
    super(message);
    this.name = 'GeminiDecodeError';
  }
}
