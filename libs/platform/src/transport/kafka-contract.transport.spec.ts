import { Controller } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AssignPlateItem, CompletePlateItem, GetPlate, Topics } from '@worktrack/contracts';
import { commandContractsOf } from '../contracts/contract-registry';
import type { KafkaClient } from '../kafka/kafka.client';
import { createLogger } from '../logging/logger';
import { Metrics } from '../metrics/metrics';
import { LOGGER } from '../nest/tokens';
import { HandleCommand, patternOf } from './contract-pattern';
import { assertEveryCommandHandled, KafkaContractTransport } from './kafka-contract.transport';

describe('a service owning a command topic', () => {
  const plate = commandContractsOf('plateCommands').map(patternOf);

  it('knows the command contracts of its topic', () => {
    expect(plate).toEqual(expect.arrayContaining([AssignPlateItem, CompletePlateItem, GetPlate].map(patternOf)));
    expect(commandContractsOf('plateCommands').every((c) => c.topic === 'plateCommands')).toBe(true);
  });

  it('starts when every command contract of the topic has a handler', () => {
    expect(() => assertEveryCommandHandled('plateCommands', new Set(plate))).not.toThrow();
  });

  it('refuses to start when one has none, naming it', () => {
    const handled = new Set(plate.filter((p) => p !== patternOf(GetPlate)));
    expect(() => assertEveryCommandHandled('plateCommands', handled)).toThrow(
      `${Topics.plateCommands.name} has command contracts with no handler: ${patternOf(GetPlate)}`,
    );
  });
});

@Controller()
class PartialPlateController {
  @HandleCommand(AssignPlateItem)
  assign(): Promise<never> {
    return Promise.reject(new Error('never called'));
  }
}

describe('KafkaContractTransport with ownsCommandTopic', () => {
  it('makes the service refuse to start, before any consumer, when a command of its topic has no handler', async () => {
    const metrics = new Metrics('refusal');
    const logger = createLogger('refusal', 'silent', 'refusal');
    const strategy = new KafkaContractTransport({} as KafkaClient, logger, metrics, {
      commandTopic: 'plateCommands',
      commandGroup: 'plate',
      ownsCommandTopic: true,
    });
    const server = await NestFactory.createMicroservice(
      {
        module: class RefusalModule {},
        controllers: [PartialPlateController],
        providers: [
          { provide: LOGGER, useValue: logger },
          { provide: Metrics, useValue: metrics },
        ],
      },
      { strategy, logger: false },
    );
    try {
      const started = server.listen();
      await expect(started).rejects.toThrow(/plate\.commands has command contracts with no handler: .*plate\.items\.complete@v1/);
      await expect(started).rejects.toMatchObject({ name: 'StartupRefusal' });
    } finally {
      await server.close();
    }
  });
});
