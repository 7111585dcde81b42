import { describe, expect, it } from 'vitest';
import { openAiLineItemModel, providerOfModel, reconciliationModel } from '../../../reconciliation/model-keys.js';

describe('reconciliationModel', () => {
  it('lowercases, trims and drops a trailing release date in either form', () => {
    expect(reconciliationModel(' GPT-4o-2024-08-06 ')).toBe('gpt-4o');
    expect(reconciliationModel('claude-sonnet-4-20250514')).toBe('claude-sonnet-4');
    expect(reconciliationModel('gpt-4o')).toBe('gpt-4o');
    // A date elsewhere in the name, or a short number, is part of the name.
    expect(reconciliationModel('gpt-4o-2024-08-06-mini')).toBe('gpt-4o-2024-08-06-mini');
    expect(reconciliationModel('claude-3-5-haiku')).toBe('claude-3-5-haiku');
  });
});

describe('openAiLineItemModel', () => {
  it('takes the model before the first comma of a line item', () => {
    expect(openAiLineItemModel('gpt-4o-2024-08-06, input')).toBe('gpt-4o');
    expect(openAiLineItemModel('gpt-4o-mini-2024-07-18, cached input')).toBe('gpt-4o-mini');
    expect(openAiLineItemModel('File search tool storage')).toBe('file search tool storage');
  });
});

describe('providerOfModel', () => {
  it('takes the provider the event sent, lowercased', () => {
    expect(providerOfModel('gpt-4o', 'Azure')).toBe('azure');
  });
  it('else infers it from the model name', () => {
    expect(providerOfModel('gpt-4o', null)).toBe('openai');
    expect(providerOfModel('o3-mini', null)).toBe('openai');
    expect(providerOfModel('claude-sonnet-4', ' ')).toBe('anthropic');
    expect(providerOfModel('gemini-2.5-pro', null)).toBe('google');
    expect(providerOfModel('my-model', null)).toBe('unknown');
    expect(providerOfModel(null, null)).toBe('unknown');
  });
});
