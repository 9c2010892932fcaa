/**
 * The messages of `proto/test_service.proto` as proto-loader hands them over with `defaults: true`
 * (absent fields arrive as '' / [] / 0, so handlers never see undefined).
 */
export type EchoRequest = { readonly payload: string };
export type EchoResponse = { readonly payload: string };
export type SumRequest = { readonly values: readonly number[] };
export type SumResponse = { readonly value: number };
