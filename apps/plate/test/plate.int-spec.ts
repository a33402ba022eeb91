import { serviceSkeletonSpec } from '@worktrack/testing';
import { PlateConfig } from '../src/plate.config';
import { plateService } from '../src/plate.service-definition';

serviceSkeletonSpec(plateService, PlateConfig);
