/**
 * Wire formats of events and stored records: canonical JSON ({@link
 * io.demandfold.core.codec.JsonCodec}), Avro single-object encoding with reader-side resolution of
 * older schemas ({@link io.demandfold.core.codec.AvroCodec}), and the {@link
 * io.demandfold.core.codec.EventDecoder} that tells the two apart by their first bytes. The JSON
 * lines of the derived views ({@link io.demandfold.core.codec.ViewJson}) are defined here too, so
 * that the {@code fold} command and the output topics print the same bytes.
 */
package io.demandfold.core.codec;
