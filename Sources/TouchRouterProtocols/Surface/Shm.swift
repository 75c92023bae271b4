import CWaylandShim
import TouchRouterCore
#if canImport(Glibc)
import Glibc
#endif

// wl_shm, wl_shm_pool and their wl_buffers. The session's own rather than libwayland's,
// whose create_buffer checks a stride only against the width in pixels: a buffer must be
// refused at creation when its rows cannot hold its pixels.

/// A client's shared-memory file, mapped for reading, and for writing where the file allows
/// it (screen capture writes into a client's buffer). Its buffers keep it mapped after the
/// pool is destroyed, as the protocol allows.
/// Counted against its client's `ClientLimits.mappedBytes` while it is mapped.
package final class ClientMemory {
    package private(set) var data: UnsafeMutableRawPointer
    package private(set) var size: Int
    package let writable: Bool
    private weak var owner: ClientRecord?

    package init(fd: Int32, size: Int, owner: ClientRecord) throws(WaylandError) {
        var writable: Int32 = 0
        guard let data = tr_map_client_memory(fd, size, &writable) else { throw WaylandError.errno("mmap of \(size) bytes") }
        self.writable = writable != 0
        self.data = data
        self.size = size
        self.owner = owner
        owner.usage.mappedBytes += size
    }

    package func grow(to newSize: Int) throws(WaylandError) {
        guard let moved = tr_remap_client_memory(data, size, newSize) else { throw WaylandError.errno("mremap to \(newSize) bytes") }
        owner?.usage.mappedBytes += newSize - size
        data = moved
        size = newSize
    }

    deinit {
        owner?.usage.mappedBytes -= size
        munmap(data, size)
    }
}

extension WaylandObject {
    /// Whether mapping `more` bytes keeps the client within `ClientLimits.mappedBytes`;
    /// if not, the client is ended, its request named.
    package func mayMap(_ more: Int, for record: ClientRecord, _ request: String) -> Bool {
        guard record.usage.mappedBytes + more > ClientLimits.mappedBytes else { return true }
        endClient(request, pastLimit: "\(more) bytes take the client past \(ClientLimits.mappedBytes >> 20) MiB of mapped pools, its limit")
        return false
    }
}

package enum ShmGlobal {
    package static let version: Int32 = 1
    /// Four bytes a pixel, the two formats every compositor must offer.
    package static let formats = [WL_SHM_FORMAT_ARGB8888.rawValue, WL_SHM_FORMAT_XRGB8888.rawValue]

    package nonisolated(unsafe) static let table = implementation(wl_shm_interface(
        create_pool: { client, resource, id, fd, size in
            defer { close(fd) }
            let shm = WaylandObject.of(resource, as: PlainGlobal.self)
            let name = "wl_shm@\(wl_resource_get_id(resource)).create_pool"
            guard size > 0 else {
                shm.postError(WL_SHM_ERROR_INVALID_STRIDE.rawValue, "\(name): size \(size) is not positive")
                return
            }
            guard let record = shm.clientRecord, shm.mayMap(Int(size), for: record, name) else { return }
            let memory: ClientMemory
            do {
                memory = try ClientMemory(fd: fd, size: Int(size), owner: record)
            } catch {
                shm.postError(WL_SHM_ERROR_INVALID_FD.rawValue, "\(name): cannot map the file: \(error)")
                return
            }
            guard let created = createResource(client, tr_wl_shm_pool_interface(), version: shm.version, id: id) else { return }
            WaylandObject.install(ShmPool(resource: created, madeBy: shm, memory: memory), implementation: ShmPool.table)
        }))

    package static func sendFormats(to resource: OpaquePointer) {
        for format in formats { wl_shm_send_format(resource, format) }
    }
}

package final class ShmPool: WaylandObject {
    package let memory: ClientMemory

    package init(resource: OpaquePointer, madeBy shm: WaylandObject, memory: ClientMemory) {
        self.memory = memory
        super.init(resource: resource, madeBy: shm)
    }

    package nonisolated(unsafe) static let table = implementation(wl_shm_pool_interface(
        create_buffer: { client, resource, id, offset, width, height, stride, format in
            let pool = WaylandObject.of(resource, as: ShmPool.self)
            let name = "wl_shm_pool@\(wl_resource_get_id(resource)).create_buffer"
            guard ShmGlobal.formats.contains(format) else {
                pool.postError(WL_SHM_ERROR_INVALID_FORMAT.rawValue, "\(name): format 0x\(String(format, radix: 16)) is not one wl_shm offered")
                return
            }
            // In Int, so that no product of client numbers can overflow.
            let (offset, width, height, stride) = (Int(offset), Int(width), Int(height), Int(stride))
            guard offset >= 0, width > 0, height > 0, stride >= width * 4, offset + stride * height <= pool.memory.size else {
                pool.postError(WL_SHM_ERROR_INVALID_STRIDE.rawValue,
                               "\(name): \(width)x\(height) pixels of 4 bytes, \(stride) bytes a row, at offset \(offset) do not fit a pool of \(pool.memory.size) bytes")
                return
            }
            guard width <= ClientLimits.bufferDimension, height <= ClientLimits.bufferDimension else {
                pool.endClient(name, pastLimit: "\(width)x\(height) is over \(ClientLimits.bufferDimension) pixels a side, the largest a buffer may be")
                return
            }
            guard let created = createResource(client, tr_wl_buffer_interface(), version: 1, id: id) else { return }
            let buffer = ShmBuffer(resource: created, madeBy: pool, memory: pool.memory, offset: offset,
                                   size: Size(width: width, height: height), stride: stride, format: format)
            WaylandObject.install(buffer, implementation: ShmBuffer.table)
        },
        destroy: destroyRequest,
        resize: { _, resource, size in
            let pool = WaylandObject.of(resource, as: ShmPool.self)
            let name = "wl_shm_pool@\(wl_resource_get_id(resource)).resize"
            guard Int(size) >= pool.memory.size else {
                pool.postError(WL_SHM_ERROR_INVALID_STRIDE.rawValue, "\(name): a pool cannot shrink (\(pool.memory.size) to \(size) bytes)")
                return
            }
            guard let record = pool.clientRecord, pool.mayMap(Int(size) - pool.memory.size, for: record, name) else { return }
            do {
                try pool.memory.grow(to: Int(size))
            } catch {
                pool.postError(WL_SHM_ERROR_INVALID_FD.rawValue, "\(name): \(error)")
            }
        }))
}

/// A wl_buffer in a pool: four bytes a pixel, rows `stride` bytes apart.
package final class ShmBuffer: WaylandObject {
    package let memory: ClientMemory
    package let offset: Int
    package let size: Size
    package let stride: Int
    /// A wl_shm format, one of `ShmGlobal.formats`.
    package let format: UInt32

    package init(resource: OpaquePointer, madeBy pool: ShmPool, memory: ClientMemory, offset: Int, size: Size, stride: Int, format: UInt32) {
        self.memory = memory
        self.offset = offset
        self.size = size
        self.stride = stride
        self.format = format
        super.init(resource: resource, madeBy: pool)
    }

    package nonisolated(unsafe) static let table = implementation(wl_buffer_interface(destroy: destroyRequest))

    /// The buffer behind a wl_buffer, if it is one of ours.
    package static func behind(_ resource: OpaquePointer) -> ShmBuffer? {
        guard wl_resource_instance_of(resource, tr_wl_buffer_interface(), table) != 0 else { return nil }
        return WaylandObject.of(resource, as: ShmBuffer.self)
    }

    /// Copies `area` (inside the buffer) into `pixels`, rows of `size.width`. A client that
    /// made its file smaller than its pool ends with `invalid_fd`; false then.
    package func copy(_ area: Rect<BufferSpace>, into pixels: UnsafeMutableBufferPointer<UInt32>) -> Bool {
        let source = memory.data.advanced(by: offset + area.y * stride + area.x * 4).assumingMemoryBound(to: UInt8.self)
        let destination = UnsafeMutableRawPointer(pixels.baseAddress!.advanced(by: area.y * size.width + area.x)).assumingMemoryBound(to: UInt8.self)
        let copied = tr_guarded_copy_rows(destination, size.width * 4, source, stride, area.width * 4, area.height)
        guard copied == 0 else {
            postError(WL_SHM_ERROR_INVALID_FD.rawValue, "wl_buffer@\(wl_resource_get_id(resource)): its pool's file is shorter than the pool (\(memory.size) bytes)")
            return false
        }
        return true
    }

    /// Writes `rows` rows of `rowWords` XRGB words from `source` (rows `sourceStride` words
    /// apart) into the buffer from its top left. False, with the buffer unchanged or part
    /// written, when its file is read-only or shorter than its pool (the client then ends
    /// with `invalid_fd`).
    package func write(from source: UnsafeBufferPointer<UInt32>, sourceStride: Int, rowWords: Int, rows: Int) -> Bool {
        guard memory.writable, rowWords * 4 <= stride, rows <= size.height, rowWords <= size.width else { return false }
        let destination = memory.data.advanced(by: offset).assumingMemoryBound(to: UInt8.self)
        let bytes = UnsafeRawPointer(source.baseAddress!).assumingMemoryBound(to: UInt8.self)
        guard tr_guarded_copy_rows(destination, stride, bytes, sourceStride * 4, rowWords * 4, rows) == 0 else {
            postError(WL_SHM_ERROR_INVALID_FD.rawValue, "wl_buffer@\(wl_resource_get_id(resource)): its pool's file is shorter than the pool (\(memory.size) bytes)")
            return false
        }
        return true
    }
}
