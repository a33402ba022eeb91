import { normalizeDocument, normalizeSchema } from './oas31';

describe('OpenAPI 3.0 schema forms rewritten as 3.1', () => {
  it('turns nullable into a null type, keeping enums valid', () => {
    const schema = { type: 'string', enum: ['full', 'report_only'], nullable: true };
    normalizeSchema(schema);
    expect(schema).toEqual({ type: ['string', 'null'], enum: ['full', 'report_only', null] });
  });

  it('wraps a nullable reference in anyOf, keeping its description outside', () => {
    const schema: Record<string, unknown> = {
      type: 'object',
      nullable: true,
      description: 'd',
      allOf: [{ $ref: '#/components/schemas/X' }],
    };
    normalizeSchema(schema);
    expect(schema).toEqual({
      description: 'd',
      anyOf: [{ type: 'object', allOf: [{ $ref: '#/components/schemas/X' }] }, { type: 'null' }],
    });
  });

  it('rewrites example and boolean exclusive bounds, down nested schemas', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'number', minimum: 0, exclusiveMinimum: true, example: 1 },
        list: { type: 'array', items: { type: 'integer', maximum: 9, exclusiveMaximum: false } },
      },
    };
    normalizeSchema(schema);
    expect(schema.properties).toEqual({
      n: { type: 'number', exclusiveMinimum: 0, examples: [1] },
      list: { type: 'array', items: { type: 'integer', maximum: 9 } },
    });
  });

  it('leaves example values and a property named like a keyword alone', () => {
    const document = {
      components: { schemas: { A: { type: 'object', properties: { nullable: { type: 'boolean' } } } } },
      paths: {
        '/a': {
          get: {
            responses: {
              '200': {
                content: {
                  'application/json': { schema: { type: 'string', nullable: true }, examples: { x: { value: { nullable: true } } } },
                },
              },
            },
          },
        },
      },
    };
    normalizeDocument(document);
    expect(document.components.schemas.A.properties.nullable).toEqual({ type: 'boolean' });
    const media = document.paths['/a'].get.responses['200'].content['application/json'];
    expect(media.schema).toEqual({ type: ['string', 'null'] });
    expect(media.examples.x.value).toEqual({ nullable: true });
  });
});
