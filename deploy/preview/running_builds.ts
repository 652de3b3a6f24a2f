/**
 * Stopping the builds of a builder image before its stack is torn down: every MicroVM of the
 * image that has not ended (`PENDING`, `RUNNING`, `SUSPENDING`, `SUSPENDED`) is terminated, so
 * no build keeps writing into a bucket that is being emptied.
 *
 * @module
 */
import {
  type LambdaMicrovmsClient,
  paginateListMicrovms,
  TerminateMicrovmCommand,
} from "@aws-sdk/client-lambda-microvms";
import { aws, awsMaybe } from "../aws/errors.ts";
import { allItems } from "../aws/pages.ts";

/** MicroVM states after which nothing runs any more. */
const ENDED: ReadonlySet<string> = new Set(["TERMINATED", "TERMINATING"]);

/**
 * Terminates every live MicroVM of the builder image.
 *
 * @param microvms the MicroVMs client
 * @param image the builder image's name
 * @returns the ids terminated
 * @throws {DeployError} an AWS failure (a VM that ended meanwhile is not one)
 */
export async function terminateRunningBuilds(
  microvms: LambdaMicrovmsClient,
  image: string,
): Promise<string[]> {
  const live = await aws(
    { resource: `builds of ${image}`, action: "lambda:ListMicrovms" },
    async () => {
      const pages = paginateListMicrovms({ client: microvms, pageSize: 50 }, {
        imageIdentifier: image,
      });
      return (await allItems(pages, (page) => page.items)).flatMap((vm) =>
        vm.microvmId && !ENDED.has(vm.state ?? "") ? [vm.microvmId] : []
      );
    },
  );
  for (const id of live) {
    await awsMaybe(
      { resource: `builder MicroVM ${id}`, action: "lambda:TerminateMicrovm" },
      () => microvms.send(new TerminateMicrovmCommand({ microvmIdentifier: id })),
    );
  }
  return live;
}
