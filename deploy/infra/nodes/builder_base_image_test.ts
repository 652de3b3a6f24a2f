import assert from "node:assert/strict";
import { chooseBaseImage, managedImageName } from "./builder_base_image.ts";

const arn = (name: string) => `arn:aws:lambda:eu-west-1:aws:microvm-image:${name}`;

Deno.test("managedImageName() is the ARN's segment after microvm-image:", () => {
  assert.equal(managedImageName(arn("al2023-1")), "al2023-1");
  assert.equal(managedImageName("al2023-2"), "al2023-2");
});

Deno.test("chooseBaseImage() picks the al2023 image with the highest version by default", () => {
  const images = [
    { imageArn: arn("al2023-1") },
    { imageArn: arn("al2023-3") },
    { imageArn: arn("al2023-2") },
    { imageArn: arn("ubuntu-24") },
    { imageArn: arn("al2023-10-minimal") },
  ];
  assert.equal(chooseBaseImage(images)?.imageArn, arn("al2023-3"));
});

Deno.test("chooseBaseImage() breaks a version tie by creation time, newest first", () => {
  const older = {
    imageArn: "arn:aws:lambda:eu-west-1:aws:microvm-image:al2023-1",
    createdAt: new Date(1000),
  };
  const newer = {
    imageArn: "arn:aws:lambda:eu-west-1:aws:microvm-image/al2023-1",
    createdAt: new Date(2000),
  };
  assert.equal(chooseBaseImage([older, newer]), newer);
});

Deno.test("chooseBaseImage() finds nothing when no managed image is of the al2023 family", () => {
  assert.equal(chooseBaseImage([{ imageArn: arn("ubuntu-24") }]), undefined);
  assert.equal(chooseBaseImage([]), undefined);
});

Deno.test("chooseBaseImage() honours an override by name or ARN, and only a listed one", () => {
  const images = [{ imageArn: arn("al2023-2") }, { imageArn: arn("ubuntu-24") }];
  assert.equal(chooseBaseImage(images, "ubuntu-24")?.imageArn, arn("ubuntu-24"));
  assert.equal(chooseBaseImage(images, arn("ubuntu-24"))?.imageArn, arn("ubuntu-24"));
  assert.equal(chooseBaseImage(images, "debian-12"), undefined);
});
